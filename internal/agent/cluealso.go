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
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// A second line. A log often explains its error in another line than the one that reports
// it: a warning that a setting is missing and a default is used ("REDIS_URL is not set,
// using localhost") before a refused connection to that default; the file a server could
// not open, a line above its generic failure. The clue keeps, besides its line, one other
// distinct line that adds a fact the first lacks (a setting name, or a path another family
// of error names), quotes it next to the first, and follows the setting names it gives; a
// path of another family is quoted only, never followed as the first line's file.

// maxAlsoDistance bounds how far (in lines) the second line may be from the first.
const maxAlsoDistance = 60

// addAlso picks the second line and adds what it names to the clue.
func (c *Clue) addAlso(lines []string, scores []int, classes []ErrClass, best int) {
	bestKey := digitsRun.ReplaceAllString(clipBytes(lines[best], 200), "#")
	pick, pickRank := -1, 0
	var pickKeys []string
	for i, l := range lines {
		if i == best || scores[i] <= 0 || i < best-maxAlsoDistance || i > best+maxAlsoDistance {
			continue
		}
		l = clipBytes(l, maxClueLineLen)
		if digitsRun.ReplaceAllString(clipBytes(l, 200), "#") == bestKey {
			continue // the same message again
		}
		var ent Clue
		ent.addEntities(l)
		rank := 0
		for _, k := range ent.Keys {
			if envName.MatchString(k) && !containsStr(c.Keys, k) {
				rank = 3
			}
		}
		if rank == 0 && classes[i] != c.Class && fileFamily(classes[i]) {
			// Lines of the first line's family already gave their paths to the clue; a path
			// counts only in a line about a file (not "a complete log is in /root/…").
			for _, p := range ent.Paths {
				if !containsStr(c.Paths, p) {
					rank = 2
				}
			}
		}
		if rank == 0 {
			continue
		}
		// Better facts first, then the nearer line (a warning just before the error).
		rank = rank*1000 - abs(i-best)
		if pick < 0 || rank > pickRank {
			pick, pickRank, pickKeys = i, rank, ent.Keys
		}
	}
	if pick < 0 {
		return
	}
	c.Also = tools.Sanitize(quoteWindow(lines[pick], classes[pick]), maxClueLine, true)
	for _, k := range pickKeys {
		if envName.MatchString(k) && !containsStr(c.Keys, k) && len(c.Keys) < maxEntities {
			c.Keys = append(c.Keys, k)
			c.alsoKeys = append(c.alsoKeys, k)
		}
	}
}

// fileFamily reports the error families that are about a file.
func fileFamily(c ErrClass) bool {
	return c == ErrConfig || c == ErrPermission || c == ErrDisk || c == ErrFiles
}

// quoteClue quotes the clue's line, and its second line when it has one.
func quoteClue(c Clue) string {
	if c.Also == "" || strings.Contains(c.Line, c.Also) {
		return quoteLine(c.Line)
	}
	return quoteLine(c.Line) + " (the log also says " + quoteLine(c.Also) + ")"
}
