package workflows_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/workflows"
)

// Every workflow.GetVersion call in the workflows (and in internal/attest's worker interceptor,
// which runs in every workflow) has its change ID in workflows.Changes with the call's
// maxSupported, and the registry lists nothing the code no longer calls.
func TestVersionRegistryListsEveryGetVersionCallWithItsMax(t *testing.T) {
	consts := map[string]ast.Expr{} // "name" in workflows, "attest.Name" in internal/attest
	files := map[*ast.File]string{} // each file and the prefix of its package's constants
	for pkg, dir := range map[string]string{"": ".", "attest.": "../internal/attest"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			require.NoError(t, err)
			files[f] = pkg
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						vs := s.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if i < len(vs.Values) {
								consts[pkg+n.Name] = vs.Values[i]
							}
						}
					}
				}
			}
		}
	}
	var resolve func(pkg string, e ast.Expr) string
	resolve = func(pkg string, e ast.Expr) string {
		name := ""
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			require.NoError(t, err)
			return s
		case *ast.Ident:
			name = pkg + e.Name
		case *ast.SelectorExpr:
			pkg = e.X.(*ast.Ident).Name + "."
			name = pkg + e.Sel.Name
		}
		if v, ok := consts[name]; ok {
			return resolve(pkg, v)
		}
		t.Fatalf("a change ID that is no string constant: %T %s", e, name)
		return ""
	}
	called := map[string]workflow.Version{}
	for f, pkg := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "GetVersion" || sel.X.(*ast.Ident).Name != "workflow" {
				return true
			}
			lit, ok := call.Args[3].(*ast.BasicLit)
			require.True(t, ok, "maxSupported is a literal")
			v, err := strconv.Atoi(lit.Value)
			require.NoError(t, err)
			called[resolve(pkg, call.Args[1])] = workflow.Version(v)
			return true
		})
	}
	require.NotEmpty(t, called)
	registered := map[string]workflow.Version{}
	for _, c := range workflows.Changes {
		require.NotContains(t, registered, c.ID, "listed twice")
		registered[c.ID] = c.Max
		require.Regexp(t, `^2\d{3}-\d{2}-\d{2}$`, c.Added, c.ID)
		require.Regexp(t, `^([0-9a-f]{7,})?$`, c.Commit, c.ID) // empty until the change has landed
	}
	require.Equal(t, called, registered)
}

// A retirement lists the running workflows of the change's types whose TemporalChangeVersion
// holds none of the versions newer than the branch it retires.
func TestRunningOnQueryListsRunsWithoutANewerVersion(t *testing.T) {
	c, ok := workflows.ChangeByID("render-provenance")
	require.True(t, ok)
	require.Equal(t, `ExecutionStatus = "Running" AND WorkflowType IN ("ProvisionPipeline", "DeployPipeline", "PlanPipeline", "ArchivePipeline", "DestroyPipeline", "DeprovisionPipeline") AND NOT (TemporalChangeVersion IN ("render-provenance-1", "render-provenance-2", "verified-requests-4", "verified-requests-5", "verified-requests-6", "verified-requests-7"))`,
		c.RunningOnQuery(workflow.DefaultVersion))
	require.Equal(t, `ExecutionStatus = "Running" AND WorkflowType IN ("ProvisionPipeline", "DeployPipeline", "PlanPipeline", "ArchivePipeline", "DestroyPipeline", "DeprovisionPipeline") AND NOT (TemporalChangeVersion IN ("render-provenance-2", "verified-requests-4", "verified-requests-5", "verified-requests-6", "verified-requests-7"))`,
		c.RunningOnQuery(1))
	// A run from verified-requests 4 asks no GetVersion for a change riding on it: it is past every branch.
	rider := workflows.Change{ID: "x", Max: 1, RidesOn: 4}
	require.Equal(t, `ExecutionStatus = "Running" AND NOT (TemporalChangeVersion IN ("x-1", "verified-requests-4", "verified-requests-5", "verified-requests-6", "verified-requests-7")) AND NOT (WorkflowType = "NameClaimWorkflow" AND TemporalChangeVersion IS NULL)`, rider.RunningOnQuery(workflow.DefaultVersion))
	all := workflows.Change{ID: "x", Max: 1}
	require.Equal(t, `ExecutionStatus = "Running" AND NOT (TemporalChangeVersion IN ("x-1")) AND NOT (WorkflowType = "NameClaimWorkflow" AND TemporalChangeVersion IS NULL)`, all.RunningOnQuery(workflow.DefaultVersion))
	_, ok = workflows.ChangeByID("no-such-change")
	require.False(t, ok)
}
