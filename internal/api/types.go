// Package api owns the ODLM API (group operator.ibm.com, version v1alpha1) as Go types whose
// JSON names are exactly those of ODLM's CRDs, and decoding input objects into them.
//
// Decoding reports, as warnings, every field the real API server would prune or ODLM
// would ignore, so that a typo never passes silently; a field that OLM's SubscriptionConfig
// does not have is an error. It does not apply ODLM's defaults:
// that is rendering logic (pkg/render).
package api

import (
	"github.com/odlm-render/odlm-render/internal/olm"
)

// Group and version of the ODLM API.
const (
	Group      = "operator.ibm.com"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
)

// Kinds of the ODLM API.
const (
	KindOperandRegistry = "OperandRegistry"
	KindOperandConfig   = "OperandConfig"
	KindOperandRequest  = "OperandRequest"
	KindOperandBindInfo = "OperandBindInfo"
	KindOperatorConfig  = "OperatorConfig"
)

// Scope values of a registry entry.
const (
	ScopePublic  = "public"
	ScopePrivate = "private"
)

// InstallMode values of a registry entry.
const (
	InstallModeNamespace = "namespace"
	InstallModeCluster   = "cluster"
	InstallModeNoOp      = "no-op"
)

// OperandRegistrySpec is OperandRegistry.spec.
type OperandRegistrySpec struct {
	Operators []Operator `json:"operators,omitempty"`
}

// Operator is one entry of OperandRegistry.spec.operators.
type Operator struct {
	Name                string              `json:"name"`
	Namespace           string              `json:"namespace,omitempty"`
	SourceName          string              `json:"sourceName,omitempty"`
	SourceNamespace     string              `json:"sourceNamespace,omitempty"`
	TargetNamespaces    []string            `json:"targetNamespaces,omitempty"`
	PackageName         string              `json:"packageName"`
	ConfigName          string              `json:"configName,omitempty"`
	Channel             string              `json:"channel"`
	FallbackChannels    []string            `json:"fallbackChannels,omitempty"`
	Description         string              `json:"description,omitempty"`
	Scope               string              `json:"scope,omitempty"`
	InstallMode         string              `json:"installMode,omitempty"`
	InstallPlanApproval string              `json:"installPlanApproval,omitempty"`
	StartingCSV         string              `json:"startingCSV,omitempty"`
	SubscriptionConfig  *SubscriptionConfig `json:"subscriptionConfig,omitempty"`
	OperatorConfig      string              `json:"operatorConfig,omitempty"`
	UserManaged         bool                `json:"userManaged,omitempty"`
}

// OperandConfigSpec is OperandConfig.spec.
type OperandConfigSpec struct {
	Services []ConfigService `json:"services,omitempty"`
}

// ConfigService is one entry of OperandConfig.spec.services.
type ConfigService struct {
	Name string `json:"name"`
	// Spec maps a CR kind (matched case-insensitively) to a fragment merged into the
	// alm-example of that kind.
	Spec      map[string]any   `json:"spec,omitempty"`
	State     string           `json:"state,omitempty"`
	Resources []ConfigResource `json:"resources,omitempty"`
}

// ConfigResource is one entry of OperandConfig.spec.services[].resources.
type ConfigResource struct {
	Name            string            `json:"name"`
	Kind            string            `json:"kind"`
	APIVersion      string            `json:"apiVersion"`
	Namespace       string            `json:"namespace,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Annotations     map[string]string `json:"annotations,omitempty"`
	Force           *bool             `json:"force,omitempty"`
	Data            Optional          `json:"data,omitempty"`
	OwnerReferences []OwnerReference  `json:"ownerReferences,omitempty"`
	OptionalFields  []OptionalField   `json:"optionalFields,omitempty"`
}

// OwnerReference is ConfigResource.ownerReferences[].
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// OptionalField is ConfigResource.optionalFields[].
type OptionalField struct {
	Path             string            `json:"path"`
	Operation        string            `json:"operation"`
	MatchExpressions []MatchExpression `json:"matchExpressions,omitempty"`
	ValueFrom        *ValueFrom        `json:"valueFrom,omitempty"`
}

// MatchExpression is OptionalField.matchExpressions[].
type MatchExpression struct {
	Key       string     `json:"key"`
	Operator  string     `json:"operator"`
	Values    []string   `json:"values,omitempty"`
	ObjectRef *ObjectRef `json:"objectRef,omitempty"`
}

// ValueFrom is OptionalField.valueFrom (declared by ODLM, never used).
type ValueFrom struct {
	Path      string     `json:"path"`
	ObjectRef *ObjectRef `json:"objectRef,omitempty"`
}

// ObjectRef names an object to read.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// OperandRequestSpec is OperandRequest.spec.
type OperandRequestSpec struct {
	Requests []Request `json:"requests"`
}

// Request is one block of OperandRequest.spec.requests.
type Request struct {
	Registry          string    `json:"registry"`
	RegistryNamespace string    `json:"registryNamespace,omitempty"`
	Description       string    `json:"description,omitempty"`
	Operands          []Operand `json:"operands"`
}

// Operand is one entry of Request.operands.
type Operand struct {
	Name         string              `json:"name"`
	Bindings     map[string]Bindable `json:"bindings,omitempty"`
	Kind         string              `json:"kind,omitempty"`
	APIVersion   string              `json:"apiVersion,omitempty"`
	InstanceName string              `json:"instanceName,omitempty"`
	Spec         Optional            `json:"spec,omitempty"`
}

// Bindable names the Secret, ConfigMap, Route or Service of a binding.
type Bindable struct {
	Secret    string          `json:"secret,omitempty"`
	Configmap string          `json:"configmap,omitempty"`
	Route     *RouteBinding   `json:"route,omitempty"`
	Service   *ServiceBinding `json:"service,omitempty"`
}

// RouteBinding is Bindable.route.
type RouteBinding struct {
	Name string            `json:"name"`
	Data map[string]string `json:"data,omitempty"`
}

// ServiceBinding is Bindable.service.
type ServiceBinding struct {
	Name string            `json:"name"`
	Data map[string]string `json:"data,omitempty"`
}

// OperandBindInfoSpec is OperandBindInfo.spec.
type OperandBindInfoSpec struct {
	Operand           string              `json:"operand"`
	Registry          string              `json:"registry"`
	RegistryNamespace string              `json:"registryNamespace,omitempty"`
	Description       string              `json:"description,omitempty"`
	Bindings          map[string]Bindable `json:"bindings,omitempty"`
}

// SubscriptionConfig is an OLM Subscription's spec.config: OLM's own type, so that decoding
// checks and prunes exactly as ODLM's typed client does.
type SubscriptionConfig = olm.SubscriptionConfig
