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

package kbbuild

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpandShortcodes(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
		refs []Reference
	}{
		{"glossary tooltip keeps its text", `the pod's {{< glossary_tooltip text="namespace" term_id="namespace" >}} here`, "the pod's namespace here", nil},
		{"glossary tooltip without text uses the term", `a {{<glossary_tooltip term_id="service-account">}}.`, "a service account.", nil},
		{"heading on its own line becomes a heading", "x\n\n{{% heading \"prerequisites\" %}}\n\ny", "x\n\n## Before you begin\n\ny", nil},
		{"heading after hashes is the heading text", `## {{% heading "whatsnext" %}}`, "## What's next", nil},
		{"prerequisites-heading shortcode", "{{% prerequisites-heading %}}\n", "## Before you begin\n", nil},
		{"note keeps its content behind a label", "{{< note >}}\nMind the gap.\n{{< /note >}}", "Note: \nMind the gap.\n", nil},
		{"caution and warning", "{{< caution >}}A{{< /caution >}} {{< warning >}}B{{< /warning >}}", "Caution: A Warning: B", nil},
		{"code sample recorded, marker left", `{{% code_sample file="application/nginx.yaml" %}}`, "[code sample: application/nginx.yaml]",
			[]Reference{{Kind: "code_sample", Target: "application/nginx.yaml"}}},
		{"codenew is a code sample", `{{< codenew file="debug/termination.yaml" >}}`, "[code sample: debug/termination.yaml]",
			[]Reference{{Kind: "code_sample", Target: "debug/termination.yaml"}}},
		{"include recorded and removed", `{{< include "task-tutorial-prereqs.md" >}} {{< version-check >}}`, " ",
			[]Reference{{Kind: "include", Target: "task-tutorial-prereqs.md"}}},
		{"tabs flattened", "{{< tabs name=\"t\" >}}\n{{% tab name=\"Linux\" %}}\nrun it\n{{% /tab %}}\n{{< /tabs >}}", "\n\n**Linux**\n\nrun it\n\n", nil},
		{"code tab becomes a fence", "{{< tab name=\"get\" codelang=\"bash\" >}}\nkubectl get po\n{{< /tab >}}", "\n**get**\n\n```bash\nkubectl get po\n```\n", nil},
		{"unknown shortcode stripped, content kept", "{{< foo bar=\"1\" >}}inner text{{< /foo >}} after", "inner text after", nil},
		{"param inside a link disappears", `[API](/docs/ref/{{< param "version" >}}/#pod)`, `[API](/docs/ref//#pod)`, nil},
		{"comment dropped with its content", "a{{< comment >}}secret draft{{< /comment >}}b", "ab", nil},
		{"mermaid kept as a fenced block", "{{<mermaid>}}\ngraph TD;\n{{</mermaid>}}", "\n```mermaid\ngraph TD;\n```\n", nil},
		{"feature state rendered", `{{< feature-state for_k8s_version="v1.24" state="stable" >}}`, "Feature state: Kubernetes v1.24 [stable]", nil},
		{"table caption with spaced equals", `{{< table caption = "Node conditions" >}}`, "Table: Node conditions\n\n", nil},
		{"unclosed delimiter left alone", "text {{< note and more", "text {{< note and more", nil},
		{"go templates untouched", `{{range .items}}{{.metadata.name}}{{end}}`, `{{range .items}}{{.metadata.name}}{{end}}`, nil},
		{"escaped shortcode shown literally", `{{</* note */>}}`, `{{</* note */>}}`, nil},
		{"quoted argument with escaped quote", `{{< glossary_tooltip text="say \"hi\"" term_id="x" >}}`, `say "hi"`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, refs := expandShortcodes(c.in)
			if got != c.want {
				t.Errorf("expandShortcodes(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if !reflect.DeepEqual(refs, c.refs) {
				t.Errorf("refs = %+v, want %+v", refs, c.refs)
			}
		})
	}
}

func TestExpandShortcodesIsBoundedOnHostileInput(t *testing.T) {
	// Thousands of unclosed openers must not make the scan quadratic or lose text.
	in := strings.Repeat("{{< comment >}} word ", 20000)
	out, _ := expandShortcodes(in)
	if !strings.Contains(out, "word") {
		t.Fatal("content after unclosed shortcodes was lost")
	}
}
