package collection

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// checker collects the diagnostics of one collection.
type checker struct {
	fsys    fs.FS
	display string
	file    string   // display path of the operator-config
	src     []string // its lines
	results diag.Results
	checked map[string]diag.Severity // playbooks checked, with the severity used

	// scanLimits, when set, replace the limits on the files looked at for variable
	// names (tests).
	scanLimits *scanLimits
}

type scanLimits struct {
	files int
	bytes int64
}

func (c *checker) add(sev diag.Severity, file string, line int, field, format string, args ...any) {
	c.results = append(c.results, diag.Result{Severity: sev, Message: fmt.Sprintf(format, args...), Field: field, File: file, Line: line})
}

func (c *checker) errorf(n *yaml.Node, field, format string, args ...any) {
	c.add(diag.Error, c.file, lineOf(n), field, format, args...)
}

func (c *checker) warnf(n *yaml.Node, field, format string, args ...any) {
	c.add(diag.Warning, c.file, lineOf(n), field, format, args...)
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}

// load finds, parses and checks the operator-config.
func (c *checker) load(configName string) *Config {
	name := configName
	if name == "" {
		var found []string
		for _, n := range ConfigNames {
			if st, err := fs.Stat(c.fsys, n); err == nil && !st.IsDir() {
				found = append(found, n)
			}
		}
		switch len(found) {
		case 0:
			root := c.display
			if root == "" {
				root = "."
			}
			c.add(diag.Error, root, 0, "", "no %s at the collection's root: an OperatorCollection needs one", strings.Join(ConfigNames, " or "))
			return nil
		case 2:
			c.add(diag.Error, c.displayPath(found[1]), 0, "", "both %s and %s exist: keep one", found[0], found[1])
			return nil
		}
		name = found[0]
	}
	c.file = c.displayPath(name)
	data, err := readFile(c.fsys, name, maxReadFile)
	if err != nil {
		c.add(diag.Error, c.file, 0, "", "%v", err)
		return nil
	}
	c.src = strings.Split(string(data), "\n")
	root, ok := c.parseYAML(c.file, data)
	if !ok {
		return nil
	}
	if root == nil {
		c.add(diag.Error, c.file, 1, "", "the operator-config is empty")
		return nil
	}
	return c.config(root)
}

// parseYAML parses a one-document YAML file; it reports syntax errors and returns the
// document's root node (nil for an empty document).
func (c *checker) parseYAML(file string, data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var root *yaml.Node
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return root, true
		}
		if err != nil {
			line, msg := 0, err.Error()
			var se *manifest.SyntaxError
			if errors.As(manifest.YAMLError(file, data, err), &se) {
				line, msg = se.Line, strings.TrimPrefix(se.Msg, "invalid YAML/JSON: ")
			}
			c.add(diag.Error, file, line, "", "invalid YAML: %s", msg)
			return nil, false
		}
		if i > 0 {
			c.add(diag.Error, file, doc.Line, "", "a second YAML document: the file must hold one")
			return nil, false
		}
		if len(doc.Content) > 0 && !isNull(doc.Content[0]) {
			root = doc.Content[0]
		}
	}
}

// fields is a checked YAML mapping: its keys and values by name.
type fields struct {
	node   *yaml.Node
	field  string
	keys   map[string]*yaml.Node
	values map[string]*yaml.Node
}

func (f *fields) has(key string) bool {
	v, ok := f.values[key]
	return ok && !isNull(v)
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names what a node is, for "must be X, not Y" messages.
func describe(n *yaml.Node) string {
	n = resolve(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return fmt.Sprintf("a boolean (%s)", n.Value)
	case "!!int", "!!float":
		return fmt.Sprintf("a number (%s)", n.Value)
	case "!!str":
		return fmt.Sprintf("a string (%q)", n.Value)
	}
	return fmt.Sprintf("a %s value", n.ShortTag())
}

// mapping checks that n is a mapping and indexes it; unknown keys are warnings, duplicate
// keys errors. Merge keys (<<) are honoured.
func (c *checker) mapping(n *yaml.Node, field string, known ...string) *fields {
	m := resolve(n)
	if m == nil || m.Kind != yaml.MappingNode {
		c.errorf(n, field, "must be a mapping, not %s", describe(n))
		return nil
	}
	f := &fields{node: m, field: field, keys: map[string]*yaml.Node{}, values: map[string]*yaml.Node{}}
	c.collect(f, m, known, 0)
	return f
}

func (c *checker) collect(f *fields, m *yaml.Node, known []string, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			c.errorf(k, f.field, "keys must be strings, not %s", describe(k))
			continue
		}
		if prev, ok := f.keys[k.Value]; ok {
			if depth == 0 {
				c.errorf(k, manifest.Field(f.field, k.Value), "duplicate key (also on line %d)", prev.Line)
			}
			continue
		}
		f.keys[k.Value], f.values[k.Value] = k, v
		if !slices.Contains(known, k.Value) {
			c.warnf(k, manifest.Field(f.field, k.Value), "unknown field: not in the OperatorCollection specification, ignored")
		}
	}
	if depth > 10 {
		return
	}
	for _, mv := range merges {
		mv = resolve(mv)
		srcs := []*yaml.Node{mv}
		if mv != nil && mv.Kind == yaml.SequenceNode {
			srcs = mv.Content
		}
		for _, s := range srcs {
			if s = resolve(s); s != nil && s.Kind == yaml.MappingNode {
				c.collect(f, s, known, depth+1)
			} else {
				c.errorf(mv, f.field, "a merge key (<<) needs a mapping, not %s", describe(s))
			}
		}
	}
}

// str returns a string field. A missing or empty required field, or a value that is not a
// string, is an error; the node is nil then.
func (c *checker) str(f *fields, key string, required bool) (string, *yaml.Node) {
	field := manifest.Field(f.field, key)
	v, ok := f.values[key]
	if !ok || isNull(v) {
		if required {
			at := f.node
			if ok {
				at = f.keys[key]
			}
			c.errorf(at, field, "required field is missing")
		}
		return "", nil
	}
	r := resolve(v)
	if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!str" {
		hint := ""
		if r.Kind == yaml.ScalarNode {
			hint = ": quote it"
		}
		c.errorf(v, field, "must be a string, not %s%s", describe(v), hint)
		return "", nil
	}
	if required && strings.TrimSpace(r.Value) == "" {
		c.errorf(v, field, "must not be empty")
		return "", nil
	}
	return r.Value, v
}

// boolean returns a boolean field (false when absent).
func (c *checker) boolean(f *fields, key string) bool {
	v, ok := f.values[key]
	if !ok || isNull(v) {
		return false
	}
	r := resolve(v)
	if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!bool" {
		c.errorf(v, manifest.Field(f.field, key), "must be true or false, not %s", describe(v))
		return false
	}
	var b bool
	_ = r.Decode(&b)
	return b
}

// list returns the items of a list field (nil when absent or not a list).
func (c *checker) list(f *fields, key string) []*yaml.Node {
	v, ok := f.values[key]
	if !ok || isNull(v) {
		return nil
	}
	r := resolve(v)
	if r.Kind != yaml.SequenceNode {
		c.errorf(v, manifest.Field(f.field, key), "must be a list, not %s", describe(v))
		return nil
	}
	return r.Content
}

var rootKeys = []string{"domain", "name", "version", "displayName", "description", "resources", "clusterRoles", "roles", "icon"}

func (c *checker) config(root *yaml.Node) *Config {
	f := c.mapping(root, "", rootKeys...)
	if f == nil {
		return nil
	}
	cfg := &Config{File: c.file}
	cfg.Domain = c.dnsSubdomain(f, "domain")
	cfg.Name = c.dnsSubdomain(f, "name")
	if cfg.Domain != "" && cfg.Name != "" {
		cfg.Group = cfg.Name + "." + cfg.Domain
		c.checkGroup(f, cfg.Group)
	}
	cfg.Version, cfg.APIVersion = c.version(f)
	cfg.DisplayName, _ = c.str(f, "displayName", true)
	var desc *yaml.Node
	cfg.Description, desc = c.str(f, "description", false)
	if desc != nil {
		c.checkHeaders(desc, "description")
	}
	cfg.Resources = c.resources(f)
	cfg.ClusterRoleRules = c.permissions(f, "clusterRoles", false)
	cfg.RoleRules = c.permissions(f, "roles", true)
	cfg.Icons = c.icons(f)
	return cfg
}

// dnsSubdomain returns a required field that MUST be a DNS subdomain name (RFC 1123).
func (c *checker) dnsSubdomain(f *fields, key string) string {
	s, n := c.str(f, key, true)
	if n == nil {
		return ""
	}
	if len(validation.IsDNS1123Subdomain(s)) > 0 {
		c.errorf(n, key, "%q is not a DNS subdomain name (RFC 1123): lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters", s)
		return ""
	}
	return s
}

func (c *checker) checkGroup(f *fields, group string) {
	if len(validation.IsDNS1123Subdomain(group)) > 0 {
		c.errorf(f.values["name"], "name", "API group %q (<name>.<domain>) is longer than 253 characters", group)
		return
	}
}

// CRDVersion turns a semantic version into a Kubernetes version name (a DNS-1035 label):
// "v" and the version with '.' and '+' as '-', lower case: 1.2.0-beta.1 is v1-2-0-beta-1.
func CRDVersion(v string) string {
	return "v" + strings.ToLower(strings.NewReplacer(".", "-", "+", "-").Replace(v))
}

func (c *checker) version(f *fields) (string, string) {
	s, n := c.str(f, "version", true)
	if n == nil {
		return "", ""
	}
	if _, err := semver.Parse(s); err != nil {
		c.errorf(n, "version", "%q is not a semantic version (semver.org: MAJOR.MINOR.PATCH, such as 1.0.0): %v", s, err)
		return "", ""
	}
	return s, CRDVersion(s)
}

var resourceKeys = []string{"kind", "displayName", "description", "playbook", "finalizer", "vars", "hideResource"}

func (c *checker) resources(f *fields) []Resource {
	if !f.has("resources") {
		c.str(f, "resources", true) // reports the missing field
		return nil
	}
	items := c.list(f, "resources")
	if len(items) == 0 {
		if resolve(f.values["resources"]).Kind == yaml.SequenceNode {
			c.errorf(f.values["resources"], "resources", "an OperatorCollection MUST define at least one resource")
		}
		return nil
	}
	var out []Resource
	kinds := map[string]int{}   // kind → index
	plurals := map[string]int{} // plural → index
	for i, it := range items {
		field := manifest.Field("resources", i)
		r, ok := c.resource(it, field)
		if !ok {
			continue
		}
		if r.Kind != "" {
			if j, dup := kinds[r.Kind]; dup {
				c.add(diag.Error, c.file, r.kindLine, manifest.Field(field, "kind"), "duplicate kind %q (also resources[%d]): group, version and kind MUST be unique", r.Kind, j)
				continue
			}
			if j, dup := plurals[r.Plural]; dup {
				c.add(diag.Error, c.file, r.kindLine, manifest.Field(field, "kind"), "kind %q and resources[%d].kind would both be served as %q: Kubernetes resource names are lower case, so kinds MUST differ in more than case", r.Kind, j, r.Plural)
				continue
			}
			kinds[r.Kind], plurals[r.Plural] = i, i
		}
		out = append(out, r)
	}
	return out
}

func (c *checker) resource(it *yaml.Node, field string) (Resource, bool) {
	f := c.mapping(it, field, resourceKeys...)
	if f == nil {
		return Resource{}, false
	}
	r := Resource{Line: resolve(it).Line, field: field}
	kind, kn := c.str(f, "kind", true)
	if kn != nil {
		switch {
		case !pascalCaseRe.MatchString(kind):
			c.errorf(kn, manifest.Field(field, "kind"), "%q is not PascalCase (such as SomeMiddleware): an upper-case letter, then letters and digits", kind)
		default:
			r.Kind, r.kindLine = kind, kn.Line
			r.Singular = strings.ToLower(kind)
			r.Plural = Plural(kind)
		}
	}
	r.DisplayName, _ = c.str(f, "displayName", false)
	r.Description, _ = c.str(f, "description", false)
	if p := c.collectionPath(f, "playbook", true); p != "" {
		r.Playbook = p
		c.checkPlaybook(p, manifest.Field(field, "playbook"), diag.Error, map[string]bool{})
	}
	if p := c.collectionPath(f, "finalizer", false); p != "" {
		r.Finalizer = p
		c.checkPlaybook(p, manifest.Field(field, "finalizer"), diag.Warning, map[string]bool{})
	}
	names := map[string]int{}
	for i, vn := range c.list(f, "vars") {
		vfield := manifest.Field(field, "vars", i)
		v, ok := c.variable(vn, vfield)
		if !ok {
			continue
		}
		if v.Name != "" {
			if j, dup := names[v.Name]; dup {
				c.add(diag.Error, c.file, v.nameLine, manifest.Field(vfield, "name"), "duplicate variable %q (also %s)", v.Name, manifest.Field(field, "vars", j))
				continue
			}
			names[v.Name] = i
		}
		r.Vars = append(r.Vars, v)
	}
	r.HideResource = c.boolean(f, "hideResource")
	return r, true
}

// Plural is the resource name of a kind: lower case, English plural.
func Plural(kind string) string {
	s := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "z"),
		strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case len(s) > 1 && strings.HasSuffix(s, "y") && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

var driveRe = regexp.MustCompile(`^[A-Za-z]:`)

// collectionPath checks a playbook path: relative to the collection's root, inside it, and
// naming a file of the collection. It returns the cleaned path, or "" after an error.
func (c *checker) collectionPath(f *fields, key string, required bool) string {
	s, n := c.str(f, key, required)
	if n == nil {
		return ""
	}
	field := manifest.Field(f.field, key)
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, `\`) || driveRe.MatchString(s) {
		c.errorf(n, field, "%q is not relative to the root of the collection, as the specification requires (such as playbooks/run.yml)", s)
		return ""
	}
	clean := path.Clean(s)
	if clean == ".." || strings.HasPrefix(clean, "../") || !fs.ValidPath(clean) || clean == "." {
		c.errorf(n, field, "%q leaves the collection: the path MUST be relative to the root of the collection (such as playbooks/run.yml)", s)
		return ""
	}
	st, err := fs.Stat(c.fsys, clean)
	if err != nil {
		c.errorf(n, field, "%q is not in the collection (no file %s)", s, c.displayPath(clean))
		return ""
	}
	if st.IsDir() {
		c.errorf(n, field, "%q is a folder, not a playbook", s)
		return ""
	}
	return clean
}

var varKeys = []string{"name", "displayName", "type", "options", "required", "default", "description", "kindReference"}

func (c *checker) variable(n *yaml.Node, field string) (Var, bool) {
	f := c.mapping(n, field, varKeys...)
	if f == nil {
		return Var{}, false
	}
	v := Var{Line: resolve(n).Line, field: field}
	name, nn := c.str(f, "name", true)
	if nn != nil {
		v.nameLine = nn.Line
		if !ansibleVarRe.MatchString(name) || pythonKeywords[name] {
			c.errorf(nn, manifest.Field(field, "name"), "%q is not an Ansible variable name (letters, digits and _, not starting with a digit, not a Python keyword): it MUST name a variable of the playbook or its roles", name)
		} else {
			v.Name = name
			if slices.Contains(ProvidedVars, name) {
				c.warnf(nn, manifest.Field(field, "name"), "%q is also a variable z/OS Cloud Broker provides to every playbook: one of the two values is lost", name)
			}
		}
	}
	v.DisplayName, _ = c.str(f, "displayName", true)
	typ, tn := c.str(f, "type", true)
	if tn != nil {
		if slices.Contains(VarTypes, typ) {
			v.Type = typ
		} else {
			hint := ""
			if typ == "object" {
				hint = " (object variables are not part of this version of the specification)"
			}
			c.errorf(tn, manifest.Field(field, "type"), "%q is not a variable type: use one of %s%s", typ, strings.Join(VarTypes, ", "), hint)
		}
	}
	if f.has("options") {
		v.Options = c.options(f, v.Type)
	}
	v.Required = c.boolean(f, "required")
	v.Description, _ = c.str(f, "description", false)
	ref, rn := c.str(f, "kindReference", false)
	if rn != nil {
		if pascalCaseRe.MatchString(ref) {
			v.KindReference = ref
		} else {
			c.errorf(rn, manifest.Field(field, "kindReference"), "%q is not a kind (PascalCase, such as SomeMiddleware)", ref)
		}
	}
	v.Default = c.defaultValue(f, &v)
	return v, true
}

func (c *checker) options(f *fields, typ string) []string {
	field := manifest.Field(f.field, "options")
	items := c.list(f, "options")
	if items == nil {
		if r := resolve(f.values["options"]); r.Kind == yaml.SequenceNode {
			c.errorf(r, field, "must list at least one option")
		}
		return nil
	}
	if typ != "" && typ != TypeString {
		c.errorf(f.values["options"], field, "options (a dropdown) go with type string, not %s", typ)
		return nil
	}
	var out []string
	for i, it := range items {
		r := resolve(it)
		if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!str" {
			c.errorf(it, manifest.Field(field, i), "must be a string, not %s", describe(it))
			continue
		}
		if slices.Contains(out, r.Value) {
			c.warnf(it, manifest.Field(field, i), "duplicate option %q", r.Value)
			continue
		}
		out = append(out, r.Value)
	}
	return out
}

// defaultValue returns a var's default as a value tree scalar (nil when there is none):
// numbers and booleans written as strings are taken as the number or boolean. Whether the
// value fits the var's type and options is the API server's CRD validation's to say
// (checkCRDs), as the import creates the CRD with this default.
func (c *checker) defaultValue(f *fields, v *Var) any {
	n, ok := f.values["default"]
	if !ok {
		return nil
	}
	field := manifest.Field(f.field, "default")
	r := resolve(n)
	if isNull(r) {
		c.warnf(n, field, "empty: the variable has no default")
		return nil
	}
	if r.Kind != yaml.ScalarNode {
		c.errorf(n, field, "must be a single value, not %s", describe(n))
		return nil
	}
	text := r.Value
	v.defaultLine, v.defaultText = lineOf(n), text
	switch v.Type {
	case TypeString:
		return text
	case TypePassword:
		if len(text) > 253 || !secretNameRe.MatchString(text) {
			c.errorf(n, field, "%q is not a Secret name (a password variable holds the name of a Secret)", text)
			return nil
		}
		return text
	case TypeNumber, TypeInteger:
		if r.ShortTag() == "!!int" || r.ShortTag() == "!!float" {
			if val, err := manifest.NodeValue(r); err == nil {
				return val
			}
		} else if val, err := manifest.DecodeJSONValue([]byte(text)); err == nil {
			if num, ok := val.(json.Number); ok {
				return num
			}
		}
	case TypeBoolean:
		switch {
		case r.ShortTag() == "!!bool":
			var b bool
			_ = r.Decode(&b)
			return b
		case r.ShortTag() == "!!str" && (text == "true" || text == "false"):
			return text == "true"
		}
	}
	val, err := manifest.NodeValue(r)
	if err != nil {
		return text
	}
	return val
}

var ruleKeys = []string{"apiGroups", "resources", "resourceNames", "verbs", "nonResourceURLs"}

// permissions returns the policy rules of `clusterRoles` or `roles`. An entry is an object
// with `rules` (the specification's form) or a policy rule itself (the form of z/OS Cloud
// Broker's published JSON schema). Rules are checked as the Kubernetes API server checks
// them.
func (c *checker) permissions(f *fields, key string, namespaced bool) []any {
	var out []any
	for i, it := range c.list(f, key) {
		field := manifest.Field(key, i)
		if r := resolve(it); r.Kind == yaml.MappingNode && slices.ContainsFunc(r.Content, func(k *yaml.Node) bool { return k.Value == "rules" }) {
			pf := c.mapping(it, field, "rules")
			if pf == nil {
				continue
			}
			for j, rn := range c.list(pf, "rules") {
				if rule := c.rule(rn, manifest.Field(field, "rules", j), namespaced); rule != nil {
					out = append(out, rule)
				}
			}
			continue
		}
		if rule := c.rule(it, field, namespaced); rule != nil {
			out = append(out, rule)
		}
	}
	return out
}

func (c *checker) rule(n *yaml.Node, field string, namespaced bool) map[string]any {
	f := c.mapping(n, field, ruleKeys...)
	if f == nil {
		return nil
	}
	rule := map[string]any{}
	ok := true
	lists := map[string][]any{}
	for _, key := range ruleKeys {
		for i, it := range c.list(f, key) {
			r := resolve(it)
			if r.Kind != yaml.ScalarNode || r.ShortTag() != "!!str" {
				c.errorf(it, manifest.Field(field, key, i), "must be a string, not %s", describe(it))
				ok = false
				continue
			}
			lists[key] = append(lists[key], r.Value)
		}
		if len(lists[key]) > 0 {
			rule[key] = lists[key]
		}
	}
	if len(lists["verbs"]) == 0 {
		c.errorf(f.node, manifest.Field(field, "verbs"), "a policy rule needs at least one verb")
		ok = false
	}
	if len(lists["nonResourceURLs"]) > 0 {
		if namespaced {
			c.errorf(f.values["nonResourceURLs"], manifest.Field(field, "nonResourceURLs"), "a Role cannot grant nonResourceURLs: only clusterRoles can")
			ok = false
		}
		if len(lists["apiGroups"]) > 0 || len(lists["resources"]) > 0 {
			c.errorf(f.values["nonResourceURLs"], manifest.Field(field, "nonResourceURLs"), "a policy rule grants either resources or nonResourceURLs, not both")
			ok = false
		}
	} else {
		if len(lists["apiGroups"]) == 0 {
			c.errorf(f.node, manifest.Field(field, "apiGroups"), "a resource rule needs at least one API group (\"\" for the core group)")
			ok = false
		}
		if len(lists["resources"]) == 0 {
			c.errorf(f.node, manifest.Field(field, "resources"), "a resource rule needs at least one resource")
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return rule
}

func (c *checker) icons(f *fields) []Icon {
	var out []Icon
	for i, it := range c.list(f, "icon") {
		field := manifest.Field("icon", i)
		fi := c.mapping(it, field, "base64data", "mediatype")
		if fi == nil {
			continue
		}
		var icon Icon
		data, dn := c.str(fi, "base64data", true)
		if dn != nil {
			compact := strings.Join(strings.Fields(data), "")
			if _, err := base64.StdEncoding.DecodeString(compact); err != nil {
				if _, err2 := base64.RawStdEncoding.DecodeString(compact); err2 != nil {
					c.errorf(dn, manifest.Field(field, "base64data"), "not base64: %v", err)
				}
			}
			icon.Base64Data = compact
		}
		mt, mn := c.str(fi, "mediatype", true)
		if mn != nil {
			switch {
			case !mediaTypeRe.MatchString(mt):
				c.errorf(mn, manifest.Field(field, "mediatype"), "%q is not a media type (type/subtype, such as image/svg+xml)", mt)
			case !strings.HasPrefix(strings.ToLower(mt), "image/"):
				c.warnf(mn, manifest.Field(field, "mediatype"), "%q is not an image media type", mt)
			}
			icon.MediaType = mt
		}
		out = append(out, icon)
	}
	return out
}

var headerRe = regexp.MustCompile(`^#{1,6}(\s|$)`)

// srcLine is a source line of a multi-line scalar.
type srcLine struct {
	line int    // 1-based
	text string // without the indentation
	base bool   // at the scalar's indentation (folded scalars; always for quoted ones)
}

// checkHeaders enforces "the markdown content MUST provide a new line after headers": in a
// folded (>) or quoted multi-line scalar, YAML joins a header with the text on the next
// line unless an empty line separates them. Literal (|) scalars keep every line break, and
// a plain scalar cannot hold a header (# starts a comment).
func (c *checker) checkHeaders(n *yaml.Node, field string) {
	n = resolve(n)
	var lines []srcLine
	switch n.Style {
	case yaml.FoldedStyle:
		base := -1
		for i := n.Line; i < len(c.src); i++ { // n.Line is the indicator's line
			t := c.src[i]
			if strings.TrimSpace(t) == "" {
				lines = append(lines, srcLine{line: i + 1})
				continue
			}
			ind := len(t) - len(strings.TrimLeft(t, " "))
			if base < 0 {
				base = ind
			}
			if ind < base {
				break
			}
			lines = append(lines, srcLine{line: i + 1, text: t[ind:], base: ind == base})
		}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		lines = quotedLines(c.src, n)
	default:
		return
	}
	for i, l := range lines {
		if !l.base || !headerRe.MatchString(l.text) || i+1 >= len(lines) {
			continue
		}
		next := lines[i+1]
		if next.text == "" || !next.base || strings.HasSuffix(l.text, `\n`) {
			continue
		}
		c.add(diag.Error, c.file, l.line, field, "markdown header %q runs into the next line: YAML folds them into one; the specification requires a new line after headers (add an empty line)", strings.TrimSpace(l.text))
	}
}

// quotedLines returns the source lines of a quoted scalar, from the opening to the closing
// quote, each without its leading space (folding drops it).
func quotedLines(src []string, n *yaml.Node) []srcLine {
	var out []srcLine
	quote := byte('"')
	if n.Style == yaml.SingleQuotedStyle {
		quote = '\''
	}
	if n.Line < 1 || n.Line > len(src) || n.Column < 1 || n.Column > len(src[n.Line-1]) {
		return nil
	}
	for i := n.Line - 1; i < len(src); i++ {
		t := src[i]
		start := 0
		if i == n.Line-1 {
			start = n.Column // just after the opening quote
		}
		end, closed := -1, false
		for j := start; j < len(t); j++ {
			switch {
			case quote == '"' && t[j] == '\\':
				j++
			case quote == '\'' && t[j] == '\'' && j+1 < len(t) && t[j+1] == '\'':
				j++
			case t[j] == quote:
				end, closed = j, true
			}
			if closed {
				break
			}
		}
		seg := t[start:]
		if closed {
			seg = t[start:end]
		}
		out = append(out, srcLine{line: i + 1, text: strings.TrimSpace(seg), base: true})
		if closed {
			break
		}
	}
	return out
}
