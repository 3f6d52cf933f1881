package policy

import (
	"context"
	"fmt"
	"io"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// Test runs the bundle's own tests (test_* rules, usually in *_test.rego) as `opa test` does,
// writing the report to w. dir "" tests the embedded default bundle. A bundle that does not
// load is an error (*LoadError); failing tests are passed == false.
func Test(ctx context.Context, dir string, w io.Writer, verbose bool) (passed bool, err error) {
	var e *Engine
	if dir == "" {
		e = Default()
	} else if e, err = Load(dir); err != nil {
		return false, err
	}
	// The runner compiles its own copy (it rewrites test rules); the engine's stays as loaded.
	modules := make(map[string]*ast.Module, len(e.b.modules))
	for name, m := range e.b.modules {
		modules[name] = m.Copy()
	}
	runner := tester.NewRunner().
		SetCompiler(ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1).WithEnablePrintStatements(true).WithUnsafeBuiltins(unsafeBuiltins)).
		SetStore(e.b.store()).
		SetModules(modules).
		CapturePrintOutput(true).
		EnableTracing(verbose).
		SetParallel(1)
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return false, &LoadError{Problems: astProblems(err)}
	}
	var results []*tester.Result
	fwd := make(chan *tester.Result)
	go func() {
		defer close(fwd)
		for r := range ch {
			results = append(results, r)
			fwd <- r
		}
	}()
	if err := (tester.PrettyReporter{Output: w, Verbose: verbose, FailureLine: true}).Report(fwd); err != nil {
		return false, err
	}
	if len(results) == 0 {
		fmt.Fprintf(w, "%s: no tests (rules named test_*)\n", e.Source())
		return false, nil
	}
	for _, r := range results {
		if r.Fail || r.Error != nil { // a skipped test (todo_test_*) is not a failure
			return false, nil
		}
	}
	return true, nil
}
