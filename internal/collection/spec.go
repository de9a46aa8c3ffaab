package collection

import "regexp"

// Config is a parsed operator-config: the fields the render uses, each checked.
type Config struct {
	Domain      string
	Name        string
	Version     string
	DisplayName string
	Description string
	Resources   []Resource
	// ClusterRoleRules and RoleRules are the policy rules of every `clusterRoles` and
	// `roles` entry, in order (value trees, as the API server reads them).
	ClusterRoleRules []any
	RoleRules        []any
	Icons            []Icon

	// File is the display path of the operator-config.
	File string
	// Group is the API group of the resources: "<name>.<domain>".
	Group string
	// APIVersion is the CRD version name made from Version (see CRDVersion).
	APIVersion string
}

// Resource is one entry of `resources`: a custom resource kind and its playbooks.
type Resource struct {
	Kind         string
	DisplayName  string
	Description  string
	Playbook     string
	Finalizer    string
	Vars         []Var
	HideResource bool

	// Plural and Singular are the CRD's resource names.
	Plural, Singular string
	// Line is where the entry starts in the operator-config.
	Line     int
	kindLine int
	field    string // its path in the operator-config
}

// Var is one entry of a resource's `vars`: a field of the custom resource's spec.
type Var struct {
	Name          string
	DisplayName   string
	Type          string
	Options       []string
	Required      bool
	Default       any // a value tree scalar of the var's type; nil when there is none
	Description   string
	KindReference string
	Line          int

	field    string // its path in the operator-config
	nameLine int
	// defaultLine and defaultText are where the default is and how it is written
	defaultLine int
	defaultText string
}

// Icon is one entry of `icon`.
type Icon struct {
	Base64Data string
	MediaType  string
}

// The variable types of the specification.
const (
	TypeString   = "string"
	TypeNumber   = "number"
	TypeInteger  = "integer"
	TypeBoolean  = "boolean"
	TypePassword = "password"
)

// VarTypes are the valid values of a var's `type`, in the specification's order.
var VarTypes = []string{TypeString, TypeNumber, TypeInteger, TypeBoolean, TypePassword}

// ProvidedVars are the variables the generated operator passes to every playbook; a var of
// the same name would be shadowed or shadow them.
var ProvidedVars = []string{"k8s_managed", "k8s_cr_event", "k8s_cr_group", "k8s_cr_version", "k8s_cr_kind", "ansible_operator_meta"}

var (
	pascalCaseRe = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	// ansibleVarRe is a valid Ansible variable name (a Python identifier, ASCII).
	ansibleVarRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// mediaTypeRe is "type/subtype" with optional parameters.
	mediaTypeRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$`)
	// secretNamePattern is a DNS-1123 subdomain: what a Secret's name must be.
	secretNamePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	secretNameRe      = regexp.MustCompile(secretNamePattern)
)

// pythonKeywords cannot be variable names: Ansible refuses them.
var pythonKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}
