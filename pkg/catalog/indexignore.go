package catalog

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// .indexignore follows .gitignore: one pattern a line, relative to the
// folder holding the file; "#" starts a comment; "!" re-includes; a leading
// "/" (or any inner "/") anchors the pattern to that folder, otherwise it
// matches a name at any depth; a trailing "/" matches folders only; "*", "?"
// and "[…]" match within a name and "**" across folders. Patterns of a deeper
// .indexignore take precedence, and within a file the last match wins. As
// in git, a file inside an ignored folder cannot be re-included (the folder
// is never read).

type ignoreFile struct {
	dir   string
	rules []ignoreRule
}

type ignoreRule struct {
	segs     []string // the pattern split on "/"
	negate   bool
	dirOnly  bool
	anchored bool
}

func parseIgnore(dir string, data []byte) (*ignoreFile, error) {
	f := &ignoreFile{dir: dir}
	for i, line := range strings.Split(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n") {
		line = trimTrailingSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimLeft(line, "/")
		}
		if line == "" {
			continue
		}
		for _, s := range strings.Split(line, "/") {
			if s == "" || (s == "**" && len(r.segs) > 0 && r.segs[len(r.segs)-1] == "**") {
				continue // "a//b" is "a/b", "**/**" is "**"
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("line %d: bad pattern %q: %w", i+1, s, err)
			}
			r.segs = append(r.segs, s)
		}
		f.rules = append(f.rules, r)
	}
	return f, nil
}

// trimTrailingSpace drops trailing blanks unless escaped with "\", as git does.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// match tells whether the file decides about rel (a slash path relative to
// its folder), and if so whether rel is ignored.
func (f *ignoreFile) match(rel string, isDir bool) (decided, ignore bool) {
	name := strings.Split(rel, "/")
	for _, r := range f.rules {
		if r.dirOnly && !isDir {
			continue
		}
		var ok bool
		if r.anchored {
			ok = matchSegs(r.segs, name)
		} else {
			ok = len(r.segs) == 1 && matchSegs(r.segs, name[len(name)-1:])
		}
		if ok {
			decided, ignore = true, !r.negate
		}
	}
	return decided, ignore
}

// ignored asks the .indexignore files, deepest first.
func ignored(ignores []*ignoreFile, full string, isDir bool) bool {
	for i := len(ignores) - 1; i >= 0; i-- {
		rel, err := filepath.Rel(ignores[i].dir, full)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // not below that .indexignore
		}
		if decided, ignore := ignores[i].match(filepath.ToSlash(rel), isDir); decided {
			return ignore
		}
	}
	return false
}

// matchSegs matches path segments against pattern segments, "**" standing
// for any number of segments.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
