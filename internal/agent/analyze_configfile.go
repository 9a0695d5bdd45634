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

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubage/kubage/internal/tools"
)

// A configuration file a ConfigMap provides can be there and still be unusable: a stray
// comma in JSON, a tab in YAML. The files of the failing container's ConfigMap volumes
// whose names say JSON or YAML are parsed here (bounded); one that does not parse is the
// fault when the application reports a parse or configuration error, or says nothing.
// Secret values are never read.

// parseWords mark an error line about a file's syntax rather than its absence.
// A parser's own prefix ("yaml: line 14: …") ends in a colon, where \b does not match.
var parseWords = regexp.MustCompile(`(?i)\b(parse|parsing|unmarshal|syntax|invalid character|unexpected (end|token|eof)|malformed|cannot decode|decode)\b|(?:^|[^.\w/-])(yaml|json|toml):`)

// Bounds of the syntax check.
const (
	maxParsedFiles = 8
	maxParsedBytes = 256 << 10
)

// configSyntax is one mounted file that does not parse.
type configSyntax struct {
	cm, key, file, mount, format, err string
}

// invalidConfigFiles reports a JSON or YAML file of a mounted ConfigMap that does not parse.
func (pc *podCheck) invalidConfigFiles(ctx context.Context, d *depCheck) bool {
	if d.clue.IsError() && !parseWords.MatchString(d.clue.Line) {
		return false
	}
	bad := pc.unparsableFiles(ctx, d.spec, d.clue.Paths)
	if bad == nil {
		return false
	}
	e := pc.e
	ref := e.ref("ConfigMap", bad.cm)
	wl := e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"sourceResource": kubectlResource(ref), "key": bad.key, "path": bad.file, "parseError": bad.err}
	conf := 0
	if !d.clue.IsError() {
		conf = 70 // the syntax alone, without the application's word for it
	}
	d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("ConfigMap %s key %s is not valid %s: %s", bad.cm, bad.key, bad.format, bad.err)))
	d.report(ctx, "config-file-invalid", conf, ref, fmt.Sprintf("%s: %s comes from key %s of ConfigMap %s (mounted at %s), and it is not valid %s: %s. Fix the key's content; %s %s reads it at start.",
		d.opening(), bad.file, bad.key, bad.cm, bad.mount, bad.format, bad.err, wl.Kind, wl.Name), nil, []ObjectRef{ref}, facts)
	return true
}

// unparsableFiles parses the container's ConfigMap-mounted JSON and YAML files, those the
// error names first, and returns the first that fails.
func (pc *podCheck) unparsableFiles(ctx context.Context, c corev1.Container, named []string) *configSyntax {
	type file struct{ cm, key, path, mount string }
	var files []file
	for _, m := range c.VolumeMounts {
		var vol *corev1.Volume
		for i := range pc.pod.Spec.Volumes {
			if pc.pod.Spec.Volumes[i].Name == m.Name {
				vol = &pc.pod.Spec.Volumes[i]
			}
		}
		if vol == nil || vol.ConfigMap == nil {
			continue
		}
		cm, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", vol.ConfigMap.Name)
		if err != nil {
			continue
		}
		paths := map[string]string{} // key → path inside the volume
		if len(vol.ConfigMap.Items) > 0 {
			for _, it := range vol.ConfigMap.Items {
				paths[it.Key] = it.Path
			}
		} else {
			for k := range cm.Data {
				paths[k] = k
			}
		}
		for _, k := range sortedKeys(paths) {
			p := paths[k]
			full := path.Join(m.MountPath, p)
			if m.SubPath != "" {
				if m.SubPath != p {
					continue
				}
				full = m.MountPath
			}
			if _, ok := cm.Data[k]; ok && syntaxOf(p) != "" {
				files = append(files, file{cm: cm.Name, key: k, path: full, mount: m.MountPath})
			}
		}
	}
	// The files the error names go first.
	sort.SliceStable(files, func(i, j int) bool { return containsStr(named, files[i].path) && !containsStr(named, files[j].path) })
	for i, f := range files {
		if i >= maxParsedFiles {
			break
		}
		cm, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", f.cm)
		if err != nil {
			continue
		}
		data := cm.Data[f.key]
		if len(data) > maxParsedBytes {
			continue
		}
		format := syntaxOf(f.key)
		if perr := parseAs(format, data); perr != "" {
			return &configSyntax{cm: f.cm, key: f.key, file: f.path, mount: f.mount, format: format, err: tools.Sanitize(perr, 200, true)}
		}
	}
	return nil
}

// syntaxOf names the format a file name says it has.
func syntaxOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		return "JSON"
	case ".yaml", ".yml":
		return "YAML"
	}
	return ""
}

// parseAs returns why data is not valid in format, or "".
func parseAs(format, data string) string {
	var v any
	switch format {
	case "JSON":
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			if se, ok := err.(*json.SyntaxError); ok {
				line := 1 + strings.Count(data[:min(int(se.Offset), len(data))], "\n")
				return fmt.Sprintf("%s (line %d, byte %d)", se.Error(), line, se.Offset)
			}
			return err.Error()
		}
	case "YAML":
		if err := yaml.Unmarshal([]byte(data), &v); err != nil {
			return err.Error()
		}
	}
	return ""
}
