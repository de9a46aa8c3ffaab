package catalog_test

import (
	"fmt"
	"log"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// Example loads a small file-based catalog written for this example (testdata/example) and
// reads what a render reads of it: each package's default channel and its head, the
// upgrade order of the channel, the alm-examples of the head, and deprecations.
func Example() {
	cat, err := catalog.Load("testdata/example")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range cat.PackageNames() {
		pkg, _ := cat.Package(name)
		head, err := pkg.HeadBundle("") // "" is the default channel
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: channels %v, default %s, head %s (version %s)\n",
			pkg.Name, pkg.ChannelNames(), pkg.DefaultChannel, head.Name, head.Version)
		order, err := pkg.Channels[pkg.DefaultChannel].Order()
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range order {
			fmt.Printf("  %s replaces %q\n", e.Name, e.Replaces)
		}
		fmt.Println("  provides", head.ProvidedGVKs)
		examples, err := head.Examples()
		if err != nil {
			log.Fatal(err)
		}
		for _, ex := range examples {
			fmt.Println("  alm-example", ex["kind"], ex["spec"])
		}
		if d, ok := pkg.DeprecationFor("olm.channel", "alpha"); ok {
			fmt.Println("  channel alpha is deprecated:", d.Message)
		}
	}
	// Output:
	// widget-operator: channels [alpha stable], default stable, head widget-operator.v1.1.0 (version 1.1.0)
	//   widget-operator.v1.1.0 replaces "widget-operator.v1.0.0"
	//   widget-operator.v1.0.0 replaces ""
	//   provides [widgets.example.com/v1 Widget]
	//   alm-example Widget map[size:3]
	//   channel alpha is deprecated: alpha is no longer updated; use stable.
}
