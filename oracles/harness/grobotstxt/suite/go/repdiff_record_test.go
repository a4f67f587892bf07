// repdiff: which ginkgo spec is running, and how each spec ended.
//
// Added by capture_grobotstxt.py to the work-dir copy (package grobotstxt,
// so it sits in the same ginkgo suite as robots_test.go and
// robots_private_test.go). A top-level AfterEach applies to every spec; it
// only reads ginkgo's description of the spec that just ran (Failed is
// set when its It failed) and writes it as an event. It asserts nothing.
//
// Written by repdiff, not taken from the library: it holds no line of the
// library's code (the module comes from the Go module proxy at setup,
// pinned by go.sum).
package grobotstxt

import (
	"path/filepath"

	. "github.com/onsi/ginkgo"
)

func init() {
	repdiffCurrentSpec = func() (string, string, int) {
		d := CurrentGinkgoTestDescription()
		return d.FullTestText, d.FileName, d.LineNumber
	}
}

var _ = AfterEach(func() {
	d := CurrentGinkgoTestDescription()
	repdiffRecord(map[string]interface{}{
		"kind":   "spec",
		"failed": d.Failed,
		"spec":   map[string]interface{}{"text": d.FullTestText, "file": filepath.Base(d.FileName), "line": d.LineNumber},
	})
})
