package render_test

import (
	"fmt"
	"log"

	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// ExampleRender renders an OperandRegistry, its OperandConfig and an OperandRequest against
// the catalog of the README's quickstart (examples/quickstart/catalog, written by this
// project): the objects ODLM would create once it converged, and the bundle each
// Subscription installs.
func ExampleRender() {
	inputs, err := render.DecodeObjects("inputs.yaml", []byte(`
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: platform}
spec:
  operators:
  - name: nfs
    packageName: nfs-provisioner-operator
    channel: alpha
    sourceName: community-operators
    sourceNamespace: openshift-marketplace
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandConfig
metadata: {name: common-service, namespace: platform}
spec:
  services:
  - name: nfs
    spec:
      NFSProvisioner: {storageSize: 10G}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: platform-services, namespace: platform}
spec:
  requests:
  - registry: common-service
    operands: [{name: nfs}]
`))
	if err != nil {
		log.Fatal(err)
	}
	cat, err := catalog.Load("../../examples/quickstart/catalog")
	if err != nil {
		log.Fatal(err)
	}
	out := render.Render(render.Inputs{Objects: inputs, Catalog: cat}, render.Options{})
	// out.Results are the diagnostics (errors, warnings, infos), each naming its object
	if out.Results.HasErrors() {
		log.Fatal(out.Results.Errors())
	}
	for _, o := range out.Objects {
		fmt.Println(o.Kind(), o.Namespace()+"/"+o.Name())
		if o.Kind() == "NFSProvisioner" {
			spec := o.Map["spec"].(map[string]any)
			fmt.Println("  storageSize:", spec["storageSize"], "(the OperandConfig's, merged into the alm-example)")
		}
	}
	for _, in := range out.Installs {
		fmt.Println("installs", in.Bundle.Name, "from", in.CatalogSource, "channel", in.Channel)
	}
	// Output:
	// OperatorGroup platform/operand-deployment-lifecycle-manager-operatorgroup
	// Subscription platform/nfs-provisioner-operator
	// NFSProvisioner platform/nfsprovisioner-sample
	//   storageSize: 10G (the OperandConfig's, merged into the alm-example)
	// installs nfs-provisioner-operator.v0.0.9 from openshift-marketplace/community-operators channel alpha
}
