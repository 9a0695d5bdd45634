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
