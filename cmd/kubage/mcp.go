/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	"github.com/kubage/kubage/internal/httpserve"
	"github.com/kubage/kubage/internal/mcpserver"
)

func init() {
	registerCommand(newMCPCommand)
}

// mcpTokenEnv holds the bearer token when --token-file is not given.
const mcpTokenEnv = "KUBAGE_MCP_TOKEN"

// maxTokenFile bounds the token file read at start.
const maxTokenFile = 4 << 10

// mcpOptions are the flags of `kubage mcp`.
type mcpOptions struct {
	listen               string
	path                 string
	namespace            string
	allowedNamespaces    []string
	tokenFile            string
	tokensFile           string
	grants               []mcpserver.TokenGrant
	allowUnauthenticated bool
	stdio                bool
	callTimeout          time.Duration
	maxConcurrent        int
}

// newMCPCommand returns `kubage mcp`, KubAge's MCP server for other agents and MCP clients.
func newMCPCommand() *cobra.Command {
	o := mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the built-in read-only Kubernetes tools over MCP (streamable HTTP, or stdio)",
		Long: `Serve KubAge's read-only Kubernetes diagnosis tools to any MCP client.

Over HTTP (default) the endpoint is http://<listen><path> and every request needs
"Authorization: Bearer <token>", the token coming from --token-file or $` + mcpTokenEnv + `.
With --stdio the server speaks MCP on stdin/stdout for a local client and needs no token.
Calls read one namespace: the call's namespace argument, or --namespace; --allowed-namespaces
bounds what a call may name ("*" for any).

With --tokens-file each token reads only its own namespaces (a YAML file, kept in a Secret):

  tokens:
  - name: shop-team          # for logs; the token itself is never logged
    token: <32+ random bytes, base64>
    namespaces: [shop]       # a one-namespace token reads it without naming it`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := ctrl.SetupSignalHandler()
			if o.tokensFile != "" {
				grants, err := readGrants(o.tokensFile)
				if err != nil {
					return err
				}
				o.grants = grants
			}
			token, err := o.token()
			if err != nil {
				return err
			}
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return fmt.Errorf("loading kubeconfig: %w", err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("creating Kubernetes client: %w", err)
			}
			return runMCP(ctx, o, cs, token, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":8090", "Address the HTTP server listens on.")
	f.StringVar(&o.path, "path", mcpserver.DefaultPath, "Path of the MCP endpoint.")
	f.StringVar(&o.namespace, "namespace", os.Getenv("POD_NAMESPACE"), "Namespace a call reads when it names none.")
	f.StringSliceVar(&o.allowedNamespaces, "allowed-namespaces", nil, `Namespaces a call may name; "*" for any. Default: only --namespace.`)
	f.StringVar(&o.tokenFile, "token-file", "", "File holding the bearer token clients must send (default: $"+mcpTokenEnv+").")
	f.StringVar(&o.tokensFile, "tokens-file", "", "YAML file of scoped tokens (tokens: [{name, token, namespaces}]): each token reads only its namespaces.")
	f.BoolVar(&o.allowUnauthenticated, "allow-unauthenticated", false, "Serve HTTP without a token (local development only).")
	f.BoolVar(&o.stdio, "stdio", false, "Speak MCP on stdin/stdout instead of HTTP.")
	f.DurationVar(&o.callTimeout, "call-timeout", mcpserver.DefaultCallTimeout, "Time limit of one tool call.")
	f.IntVar(&o.maxConcurrent, "max-concurrent", mcpserver.DefaultMaxConcurrent, "Tool calls served at once.")
	return cmd
}

// token reads the bearer token; HTTP without one is refused unless explicitly allowed.
func (o mcpOptions) token() (string, error) {
	var token string
	if o.tokenFile != "" {
		f, err := os.Open(o.tokenFile)
		if err != nil {
			return "", fmt.Errorf("reading --token-file: %w", err)
		}
		defer f.Close()
		buf := make([]byte, maxTokenFile+1)
		n, _ := f.Read(buf)
		if n > maxTokenFile {
			return "", fmt.Errorf("--token-file is larger than %d bytes", maxTokenFile)
		}
		token = strings.TrimSpace(string(buf[:n]))
	} else {
		token = strings.TrimSpace(os.Getenv(mcpTokenEnv))
	}
	if token == "" && len(o.grants) == 0 && !o.stdio && !o.allowUnauthenticated {
		return "", errors.New("no bearer token: set --tokens-file, --token-file or $" + mcpTokenEnv + " (or --allow-unauthenticated for local development)")
	}
	return token, nil
}

// maxTokensFile bounds the scoped tokens file read at start.
const maxTokensFile = 1 << 20

// readGrants reads and checks --tokens-file.
func readGrants(path string) ([]mcpserver.TokenGrant, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading --tokens-file: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxTokensFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading --tokens-file: %w", err)
	}
	if len(raw) > maxTokensFile {
		return nil, fmt.Errorf("--tokens-file is larger than %d bytes", maxTokensFile)
	}
	var doc struct {
		Tokens []mcpserver.TokenGrant `json:"tokens"`
	}
	if err := yaml.UnmarshalStrict(raw, &doc); err != nil {
		return nil, fmt.Errorf("--tokens-file: %w", err)
	}
	if err := mcpserver.ValidateGrants(doc.Tokens); err != nil {
		return nil, fmt.Errorf("--tokens-file: %w", err)
	}
	return doc.Tokens, nil
}

// grantNamespaces is every namespace some token reads: the server's bound when no
// --allowed-namespaces is given.
func grantNamespaces(grants []mcpserver.TokenGrant) []string {
	var out []string
	for _, g := range grants {
		for _, ns := range g.Namespaces {
			if !slices.Contains(out, ns) {
				out = append(out, ns)
			}
		}
	}
	return out
}

// runMCP serves until ctx ends. ready, when set, receives the bound HTTP address.
func runMCP(ctx context.Context, o mcpOptions, cs kubernetes.Interface, token string, ready chan<- string) error {
	log := ctrl.Log.WithName("mcp")
	allowed := o.allowedNamespaces
	if len(allowed) == 0 && len(o.grants) > 0 {
		allowed = grantNamespaces(o.grants)
	}
	s, err := mcpserver.New(mcpserver.Options{
		Clientset:         cs,
		DefaultNamespace:  o.namespace,
		AllowedNamespaces: allowed,
		Version:           mcpServerVersion(),
		CallTimeout:       o.callTimeout,
		MaxConcurrent:     o.maxConcurrent,
	})
	if err != nil {
		return err
	}
	if o.stdio {
		return mcpserver.ServeStdio(ctx, s, os.Stdin, os.Stdout)
	}

	// No read or write timeout: MCP's streamable HTTP keeps responses open.
	srv := httpserve.New(mcpserver.Handler(s, mcpserver.HTTPOptions{Path: o.path, Token: token, Tokens: o.grants}),
		httpserve.Options{Name: "MCP", Address: o.listen, Path: o.path})
	go func() {
		if a := srv.Addr(ctx); a != nil {
			log.Info("Serving MCP", "address", a.String(), "path", o.path, "namespace", o.namespace,
				"allowedNamespaces", allowed, "auth", token != "" || len(o.grants) > 0, "scopedTokens", len(o.grants))
			if ready != nil {
				ready <- a.String()
			}
		}
	}()
	return srv.Start(ctx)
}

// mcpServerVersion is the module version the binary was built from, for serverInfo.
func mcpServerVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
