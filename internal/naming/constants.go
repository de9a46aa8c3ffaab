package naming

const (
	// ControlLabel marks objects whose lifecycle an OperandRequest controls.
	ControlLabel = "operator.ibm.com/opreq-control"
	// DoNotUninstallLabel marks objects ODLM must keep when the request
	// that created them goes away.
	DoNotUninstallLabel = "operator.ibm.com/opreq-do-not-uninstall"
	// HashedDataAnnotation holds the hash of the spec ODLM applied to a
	// resource. The misspelling "depoyment" is ODLM's real key.
	HashedDataAnnotation = "operator.ibm.com/operand-depoyment-lifecycle-manager.hashedData"
	// RouteHashAnnotation holds the hash of the data ODLM applied to a
	// Route.
	RouteHashAnnotation = "operator.ibm.com/odlm.route.hashedData"
	// ClusterInstallNamespace is the namespace of operators installed for
	// all namespaces on OpenShift.
	ClusterInstallNamespace = "openshift-operators"
	// GlobalCatalogNamespace is OLM's global catalog namespace on OpenShift, where ODLM
	// runs: render.Options.GlobalCatalogNamespace when it is empty.
	GlobalCatalogNamespace = "openshift-marketplace"
	// OperatorGroupName is the name of the OperatorGroup ODLM creates.
	OperatorGroupName = "operand-deployment-lifecycle-manager-operatorgroup"
	// WatchedByODLMLabel marks objects (such as ConfigMaps and Secrets)
	// that ODLM watches.
	WatchedByODLMLabel = "operator.ibm.com/watched-by-odlm"
	// ReferencedByAnnotation names the ODLM object (Kind.namespace.name) whose template last
	// read a ConfigMap or Secret through configMapKeyRef or secretKeyRef.
	ReferencedByAnnotation = "operator.ibm.com/referenced-by-odlm-resource"
	// ManagedByOpbiLabel marks objects managed through an
	// OperandBindInfo.
	ManagedByOpbiLabel = "operator.ibm.com/managedBy-opbi"
)

// RegistryAnnotation is the Subscription annotation key naming the
// OperandRegistry regNs/regName: "<regNs>.<regName>/registry".
func RegistryAnnotation(regNs, regName string) string {
	return regNs + "." + regName + "/registry"
}

// ConfigAnnotation is the Subscription annotation key naming the
// OperandConfig regNs/regName: "<regNs>.<regName>/config".
func ConfigAnnotation(regNs, regName string) string {
	return regNs + "." + regName + "/config"
}

// RequestAnnotation is the Subscription annotation key recording that the
// OperandRequest reqNs/reqName asks for operator:
// "<reqNs>.<reqName>.<operator>/request".
func RequestAnnotation(reqNs, reqName, operator string) string {
	return requestPrefix(reqNs, reqName, operator) + "/request"
}

// OperatorNamespaceAnnotation is the Subscription annotation key recording
// the operator namespace for that request:
// "<reqNs>.<reqName>.<operator>/operatorNamespace".
func OperatorNamespaceAnnotation(reqNs, reqName, operator string) string {
	return requestPrefix(reqNs, reqName, operator) + "/operatorNamespace"
}

// RequestConfigAnnotation is the Subscription annotation key recording the
// configuration for that request: "<reqNs>.<reqName>.<operator>/config".
func RequestConfigAnnotation(reqNs, reqName, operator string) string {
	return requestPrefix(reqNs, reqName, operator) + "/config"
}

func requestPrefix(reqNs, reqName, operator string) string {
	return reqNs + "." + reqName + "." + operator
}
