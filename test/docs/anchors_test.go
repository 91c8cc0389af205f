package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*$`)
	// anchorLink is a Markdown link with a fragment: the file (empty for
	// the same document) and the anchor.
	anchorLink = regexp.MustCompile(`\]\(([^)\s#]*)#([^)\s]+)\)`)
	// sectionRef is a reference by title: docs/server.md, "Overload" (the
	// file, then the title in quotes, possibly across a line break).
	sectionRef = regexp.MustCompile(`((?:docs/)?[a-z-]+\.md|README),\s+"([^"]+)"`)
	// makeTarget is `make target`.
	makeTarget = regexp.MustCompile("`make ([a-z][a-z0-9-]*)")
	// makeRule is a rule's target in the Makefile.
	makeRule = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)
)

// headings returns a document's headings and the anchors GitHub gives
// them, outside code blocks.
func headings(t *testing.T, root, doc string) (titles []string, anchors map[string]bool) {
	t.Helper()
	anchors = map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, line := range readLines(t, root, doc) {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inCode || m == nil {
			continue
		}
		titles = append(titles, m[1])
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + string(rune('0'+n))
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return titles, anchors
}

// slug is GitHub's anchor of a heading: lower case, punctuation other than
// '-' and '_' dropped, spaces as '-'.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocsAnchorsExist: every link to a section (#anchor, of the same
// document or another) names a heading of that document.
func TestDocsAnchorsExist(t *testing.T) {
	root := repoRoot(t)
	for _, doc := range documents(t) {
		for i, line := range readLines(t, root, doc) {
			for _, m := range anchorLink.FindAllStringSubmatch(line, -1) {
				target := doc
				if m[1] != "" {
					if strings.Contains(m[1], "://") {
						continue
					}
					target = filepath.ToSlash(filepath.Join(filepath.Dir(doc), m[1]))
				}
				if !strings.HasSuffix(target, ".md") {
					continue
				}
				if _, anchors := headings(t, root, target); !anchors[m[2]] {
					t.Errorf("%s:%d: %s has no heading with the anchor #%s", doc, i+1, target, m[2])
				}
			}
		}
	}
}

// TestDocsSectionTitlesExist: a section named by its title (docs/server.md,
// "Overload") is a heading of that document or a paragraph that starts with
// the title in bold (**Overload.**), the two ways the docs title a part.
func TestDocsSectionTitlesExist(t *testing.T) {
	root := repoRoot(t)
	for _, doc := range documents(t) {
		text := strings.Join(readLines(t, root, doc), "\n")
		for _, m := range sectionRef.FindAllStringSubmatchIndex(text, -1) {
			file, title := text[m[2]:m[3]], strings.Join(strings.Fields(text[m[4]:m[5]]), " ")
			switch {
			case file == "README":
				file = "README.md"
			case !strings.HasPrefix(file, "docs/") && file != "README.md":
				file = "docs/" + file
			}
			titles, _ := headings(t, root, file)
			target := strings.Join(readLines(t, root, file), "\n")
			found := strings.Contains(strings.Join(strings.Fields(target), " "), "**"+title)
			for _, h := range titles {
				found = found || strings.HasPrefix(strings.ReplaceAll(h, "`", ""), strings.ReplaceAll(title, "`", ""))
			}
			if !found {
				t.Errorf("%s:%d: %s has no section titled %q", doc, strings.Count(text[:m[0]], "\n")+1, file, title)
			}
		}
	}
}

// TestDocsNameExistingMakeTargets: every `make target` is a rule of the
// Makefile.
func TestDocsNameExistingMakeTargets(t *testing.T) {
	root := repoRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, m := range makeRule.FindAllStringSubmatch(string(makefile), -1) {
		rules[m[1]] = true
	}
	for _, doc := range documents(t) {
		for i, line := range readLines(t, root, doc) {
			for _, m := range makeTarget.FindAllStringSubmatch(line, -1) {
				if !rules[m[1]] {
					t.Errorf("%s:%d: make %s: no such target in the Makefile", doc, i+1, m[1])
				}
			}
		}
	}
}
