package collection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// checkPlaybook checks that every play of a playbook uses `hosts: all` (z/OS Cloud Broker
// limits the run to the selected z/OS endpoint), following local import_playbook entries.
// Problems in the playbook's own file are reported with sev; field names the
// operator-config field that led to it.
func (c *checker) checkPlaybook(name, field string, sev diag.Severity, seen map[string]bool) {
	if seen[name] {
		return
	}
	seen[name] = true
	// a playbook used by several resources (or as playbook and finalizer) is reported once,
	// with the highest severity
	if prev, ok := c.checked[name]; ok && (prev == diag.Error || prev == sev) {
		return
	}
	if c.checked == nil {
		c.checked = map[string]diag.Severity{}
	}
	c.checked[name] = sev
	file := c.displayPath(name)
	data, err := readFile(c.fsys, name, maxReadFile)
	if err != nil {
		c.add(diag.Error, file, 0, "", "%v", err)
		return
	}
	root, ok := c.parseYAML(file, data)
	if !ok {
		return
	}
	root = resolve(root)
	if root == nil || root.Kind != yaml.SequenceNode {
		c.add(sev, file, lineOf(root), "", "not a playbook (a list of plays), named by %s in %s", field, c.file)
		return
	}
	for i, play := range root.Content {
		play = resolve(play)
		pfield := manifest.Field("", i)
		if play.Kind != yaml.MappingNode {
			c.add(sev, file, play.Line, pfield, "a play must be a mapping, not %s", describe(play))
			continue
		}
		var hosts, imported *yaml.Node
		for j := 0; j+1 < len(play.Content); j += 2 {
			switch play.Content[j].Value {
			case "hosts":
				hosts = play.Content[j+1]
			case "import_playbook", "ansible.builtin.import_playbook", "ansible.legacy.import_playbook":
				imported = play.Content[j+1]
			}
		}
		if imported != nil {
			c.importedPlaybook(name, resolve(imported), manifest.Field(pfield, "import_playbook"), field, sev, seen)
			continue
		}
		if hosts == nil {
			c.add(sev, file, play.Line, pfield, "the play has no hosts: the playbook MUST use hosts: all (z/OS Cloud Broker limits it to the selected z/OS endpoint)")
			continue
		}
		if !isAll(hosts) {
			c.add(sev, file, hosts.Line, manifest.Field(pfield, "hosts"), "%s is not all: the playbook MUST use hosts: all (z/OS Cloud Broker limits it to the selected z/OS endpoint)", hostsText(hosts))
		}
	}
}

func isAll(n *yaml.Node) bool {
	n = resolve(n)
	if n.Kind == yaml.SequenceNode && len(n.Content) == 1 {
		n = resolve(n.Content[0])
	}
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && strings.TrimSpace(n.Value) == "all"
}

func hostsText(n *yaml.Node) string {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	v, err := manifest.NodeValue(n)
	if err != nil {
		return describe(n)
	}
	b, _ := manifest.MarshalJSON(v)
	return string(b)
}

// importedPlaybook follows an import_playbook of a local file (relative to the importing
// playbook's folder); playbooks of other collections (namespace.name.playbook) and templated
// names cannot be read and are skipped.
func (c *checker) importedPlaybook(from string, n *yaml.Node, ifield, field string, sev diag.Severity, seen map[string]bool) {
	file := c.displayPath(from)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		c.add(sev, file, n.Line, ifield, "must name a playbook, not %s", describe(n))
		return
	}
	target := strings.TrimSpace(n.Value)
	if strings.Contains(target, "{{") || (!strings.Contains(target, "/") && !strings.HasSuffix(target, ".yml") && !strings.HasSuffix(target, ".yaml")) {
		return
	}
	if strings.HasPrefix(target, "/") {
		c.add(sev, file, n.Line, ifield, "%q is outside the collection", target)
		return
	}
	p := path.Clean(path.Join(path.Dir(from), target))
	if p == ".." || strings.HasPrefix(p, "../") || !fs.ValidPath(p) {
		c.add(sev, file, n.Line, ifield, "%q is outside the collection", target)
		return
	}
	if st, err := fs.Stat(c.fsys, p); err != nil || st.IsDir() {
		c.add(sev, file, n.Line, ifield, "%q is not in the collection (no file %s)", target, c.displayPath(p))
		return
	}
	c.checkPlaybook(p, field, sev, seen)
}

// checkGalaxy compares domain, name and version with the collection's galaxy.yml (or the
// MANIFEST.json of a built collection): the specification says they SHOULD be the same.
func (c *checker) checkGalaxy(cfg *Config) {
	g, ok := c.galaxy()
	if !ok {
		return
	}
	// galaxy names use '_', which DNS names cannot: treat it as '-'
	same := func(a, b string) bool { return strings.ReplaceAll(a, "_", "-") == strings.ReplaceAll(b, "_", "-") }
	for _, p := range []struct{ field, value, galaxyKey, galaxyValue string }{
		{"domain", cfg.Domain, "namespace", g.namespace},
		{"name", cfg.Name, "name", g.name},
		{"version", cfg.Version, "version", g.version},
	} {
		if p.value == "" || p.galaxyValue == "" || same(p.value, p.galaxyValue) {
			continue
		}
		where := g.file
		if l := g.line[p.galaxyKey]; l > 0 {
			where = fmt.Sprintf("%s:%d", g.file, l)
		}
		c.add(diag.Warning, c.file, c.rootKeyLine(p.field), p.field, "%q differs from the %s %q of %s: the specification says it SHOULD be the same (a fork MAY differ)", p.value, p.galaxyKey, p.galaxyValue, where)
	}
}

// galaxyInfo is the identity a collection gives itself, and where.
type galaxyInfo struct {
	namespace, name, version string
	file                     string         // display path
	line                     map[string]int // line of each key (galaxy.yml only)
}

// galaxy reads galaxy.yml, else MANIFEST.json; false (with the results said) when neither
// can be read. A file that is there but cannot be read is an error, not an absence.
func (c *checker) galaxy() (galaxyInfo, bool) {
	for _, name := range []string{"galaxy.yml", "MANIFEST.json"} {
		data, err := readFile(c.fsys, name, maxReadFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		g := galaxyInfo{file: c.displayPath(name)}
		if err != nil {
			c.add(diag.Error, g.file, 0, "", "%v", err)
			return g, false
		}
		if name == "MANIFEST.json" {
			return g, c.galaxyJSON(&g, data)
		}
		return g, c.galaxyYAML(&g, data)
	}
	c.add(diag.Warning, c.file, 0, "", "no galaxy.yml (or MANIFEST.json) next to it: %s does not look like the root of an Ansible collection, and playbook paths are relative to that root", c.rootName())
	return galaxyInfo{}, false
}

func (c *checker) galaxyYAML(g *galaxyInfo, data []byte) bool {
	root, ok := c.parseYAML(g.file, data)
	if !ok {
		return false
	}
	root = resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		c.add(diag.Warning, g.file, lineOf(root), "", "galaxy.yml is not a mapping")
		return false
	}
	g.line = map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, resolve(root.Content[i+1])
		g.line[k] = root.Content[i].Line
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch k {
		case "namespace":
			g.namespace = v.Value
		case "name":
			g.name = v.Value
		case "version":
			g.version = v.Value
		}
	}
	return true
}

func (c *checker) galaxyJSON(g *galaxyInfo, data []byte) bool {
	var m struct {
		CollectionInfo struct {
			Namespace, Name, Version string
		} `json:"collection_info"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		c.add(diag.Warning, g.file, 0, "", "not a collection manifest: %v", err)
		return false
	}
	g.namespace, g.name, g.version = m.CollectionInfo.Namespace, m.CollectionInfo.Name, m.CollectionInfo.Version
	return true
}

func (c *checker) rootName() string {
	if c.display == "" {
		return "."
	}
	return c.display
}

// rootKeyLine is the line of a top-level key of the operator-config (0 when absent).
func (c *checker) rootKeyLine(key string) int {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(key) + `\s*:`)
	for i, l := range c.src {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// Files that are not read when looking for the variables a collection uses.
var notContent = map[string]bool{"galaxy.yml": true, "MANIFEST.json": true, "FILES.json": true}

// checkVarReferences warns about vars that no file of the collection mentions: "The
// provided value MUST conform to an existing variable referenced in the playbook or
// underlying Ansible role". The collection's playbooks, roles, templates and vars files are
// read (not documentation); roles of other collections cannot be, so this is a warning.
func (c *checker) checkVarReferences(cfg *Config) {
	s := identScan{fsys: c.fsys, idents: map[string]bool{}, limits: scanLimits{files: maxCollectionFiles, bytes: maxCollectionBytes}}
	if c.scanLimits != nil {
		s.limits = *c.scanLimits
	}
	_ = fs.WalkDir(c.fsys, ".", s.visit)
	if s.stopped {
		c.add(diag.Warning, c.rootName(), 0, "", "stopped looking for the variables the collection uses after %d files or %s read, the limits on a collection: unused vars are not reported",
			s.limits.files, fileread.ByteSize(s.limits.bytes))
		return
	}
	for _, r := range cfg.Resources {
		for _, v := range r.Vars {
			if v.Name == "" || s.idents[v.Name] {
				continue
			}
			playbook := "playbook"
			if r.Playbook != "" {
				playbook += " " + r.Playbook
			}
			c.add(diag.Warning, c.file, v.nameLine, manifest.Field(v.field, "name"),
				"no playbook, role or template of the collection uses variable %q: it MUST name a variable of the %s or its roles", v.Name, playbook)
		}
	}
}

// identScan gathers the identifiers of a collection's content files, looking at no more
// than limits.files files and reading no more than limits.bytes: a folder may hold
// millions.
type identScan struct {
	fsys    fs.FS
	idents  map[string]bool
	limits  scanLimits
	files   int
	bytes   int64
	stopped bool
}

func (s *identScan) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return nil
	}
	if s.files++; s.files > s.limits.files {
		s.stopped = true
		return fs.SkipAll
	}
	base := path.Base(p)
	if p != "." && strings.HasPrefix(base, ".") {
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if d.IsDir() || !d.Type().IsRegular() || notContent[p] || path.Dir(p) == "." && strings.HasPrefix(base, "operator-config.") {
		return nil
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".rst", ".txt", ".pyc", ".png", ".jpg", ".gif", ".svg", ".gz", ".zip":
		return nil
	}
	if info, err := d.Info(); err != nil || info.Size() > maxContentFile {
		return nil
	}
	data, err := readFile(s.fsys, p, maxContentFile)
	if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return nil
	}
	if s.bytes += int64(len(data)); s.bytes > s.limits.bytes {
		s.stopped = true
		return fs.SkipAll
	}
	addIdents(s.idents, data)
	return nil
}

// addIdents adds the identifiers of data, [A-Za-z_][A-Za-z0-9_]* found left to right,
// without a slice of every match (a file of 8 MiB may hold millions).
func addIdents(idents map[string]bool, data []byte) {
	for i := 0; i < len(data); {
		if c := data[i]; c != '_' && (c|0x20 < 'a' || c|0x20 > 'z') {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && isIdentByte(data[j]) {
			j++
		}
		if !idents[string(data[i:j])] {
			idents[string(data[i:j])] = true
		}
		i = j
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}
