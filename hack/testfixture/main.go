// Command testfixture writes the test data derived at test time (internal/testfixture) into
// testdata/generated/ and prints each file's path: every generated file, or those named as
// arguments (`go run ./hack/testfixture real-foundational-services`). `make generated` runs it.
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
