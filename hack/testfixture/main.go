// Command testfixture writes the test data derived at test time (internal/testfixture) into
// testdata/generated/ and prints each file's path: every generated file, or those named as
// arguments (`go run ./hack/testfixture real-foundational-services`). `make generated` runs it.
// Their real inputs are read from the reference-data folder (internal/refdata:
// $ODLM_RENDER_REFERENCE_DATA, else ../shared/reference); without it, it says so and exits 1.
package main

import (
	"fmt"
	"os"

	"github.com/odlm-render/odlm-render/internal/testfixture"
)

func main() {
	names := os.Args[1:]
	if len(names) == 0 {
		names = testfixture.Names()
	}
	code := 0
	for _, n := range names {
		p, err := testfixture.Path(n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testfixture: %v\n", err)
			code = 1
			continue
		}
		fmt.Println(p)
	}
	os.Exit(code)
}
