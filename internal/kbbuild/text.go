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

import "strings"

// ParseText makes a single-section document from plain text; paragraphs are
// separated by blank lines and the title is derived from the path.
func ParseText(docPath string, content []byte) *ParsedDocument {
	doc := &ParsedDocument{Title: titleFromPath(docPath), Root: &Section{}}
	s := string(validUTF8(content))
	if len(s) > MaxParseBytes {
		s = s[:MaxParseBytes]
		doc.Warnings = append(doc.Warnings, "text truncated to the parse limit")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			doc.Root.Blocks = append(doc.Root.Blocks, Block{Kind: BlockParagraph, Text: p})
		}
	}
	return doc
}
