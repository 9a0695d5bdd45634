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
	"strings"
	"testing"
)

func TestParseHTML(t *testing.T) {
	page := `<!doctype html><html><head><title>Debug Pods</title>
<meta name="description" content="How to debug  pods.">
<script>var tracking = "noise";</script><style>body{}</style></head>
<body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main><h1>Debug Pods</h1><p>First <b>look</b> at the<br>events.</p>
<h2 id="crash">CrashLoopBackOff</h2>
<p>Check <code>kubectl logs --previous</code>.</p>
<pre><code class="language-shell">kubectl get pods
kubectl describe pod x</code></pre>
<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
<table><thead><tr><th>Reason</th><th>Fix</th></tr></thead><tbody><tr><td>OOMKilled</td><td>raise | limit</td></tr></tbody></table>
<h3>Deeper</h3><blockquote>quoted text</blockquote>
<h2>Next</h2><div>tail <span>text</span></div></main>
<footer>copyright</footer><script>more()</script></body></html>`
	doc, err := ParseHTML("https://example.com/debug.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := `title: Debug Pods
description: How to debug pods.
(root) blocks=0
  Debug Pods {#debug-pods} blocks=1
    CrashLoopBackOff {#crash} blocks=5
      Deeper {#deeper} blocks=1
    Next {#next} blocks=1
`
	if got := doc.Outline(); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	all := ""
	doc.Root.Walk(func(s *Section, _ []string) {
		for _, b := range s.Blocks {
			all += string(b.Kind) + ": " + b.Text + "\n"
		}
	})
	for _, want := range []string{
		"paragraph: First look at the\nevents.",
		"paragraph: Check `kubectl logs --previous`.",
		"code: ```shell\nkubectl get pods\nkubectl describe pod x\n```",
		"list-item: - one\n  - nested",
		"table: | Reason | Fix |\n| --- | --- |\n| OOMKilled | raise \\| limit |",
		"quote: > quoted text",
		"paragraph: tail text",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing block %q in:\n%s", want, all)
		}
	}
	for _, bad := range []string{"tracking", "Home", "copyright", "more()"} {
		if strings.Contains(all, bad) {
			t.Errorf("chrome or script text %q leaked into blocks", bad)
		}
	}
}

func TestParseHTMLMostlyScript(t *testing.T) {
	page := "<html><body><script>" + strings.Repeat("x=1;", 100000) + "</script><p>Only this.</p></body></html>"
	doc, err := ParseHTML("p.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ChunkDocument(doc, ChunkMeta{Source: "s", Path: "p.html"}, ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Text != "Only this." {
		t.Fatalf("chunks = %+v", cs)
	}
}

func TestParseHTMLDeepNesting(t *testing.T) {
	// The HTML parser refuses absurd nesting; that must be a clean per-document error.
	page := strings.Repeat("<div>", 5000) + "deep" + strings.Repeat("</div>", 5000)
	if _, err := ParseHTML("deep.html", []byte(page)); err == nil || !strings.Contains(err.Error(), "parse HTML") {
		t.Fatalf("err = %v", err)
	}
	page = strings.Repeat("<div>", 400) + "deep" + strings.Repeat("</div>", 400)
	doc, err := ParseHTML("deep.html", []byte(page))
	if err != nil || len(doc.Root.Blocks) != 1 {
		t.Fatalf("400 levels: err %v, blocks %+v", err, doc)
	}
}

func TestParseText(t *testing.T) {
	doc := ParseText("notes/on-call.txt", []byte("first para\nline two\r\n\r\nsecond para\n\n\n"))
	if doc.Title != "on call" || len(doc.Root.Blocks) != 2 || doc.Root.Blocks[0].Text != "first para\nline two" {
		t.Fatalf("doc = %s %+v", doc.Title, doc.Root.Blocks)
	}
	if _, err := Parse("Bogus", "x", nil); err == nil {
		t.Error("unknown format accepted")
	}
}
