package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/policy"
)

// policyCmd groups the platform's policy tools; they read files only, never Temporal.
func (g *globals) policyCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "The platform's Rego policies (SLIPWAY_POLICY_DIR, else the embedded default): test, check, eval"}
	cmd.AddCommand(g.policyTestCmd(), g.policyCheckCmd(), g.policyEvalCmd())
	return cmd
}

// policyDirFlag is --dir, defaulting to SLIPWAY_POLICY_DIR; "" is the embedded default bundle.
func policyDirFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "dir", os.Getenv(policy.EnvDir), "policy directory (default: "+policy.EnvDir+", else the embedded default bundle)")
}

// loadPolicy loads dir, or the embedded default; a bundle that does not load is bad input.
func loadPolicy(dir string) (*policy.Engine, error) {
	if strings.TrimSpace(dir) == "" {
		return policy.Default(), nil
	}
	e, err := policy.Load(dir)
	if err != nil {
		return nil, usageErr("policy %s does not load:\n%v", dir, err)
	}
	return e, nil
}

func policySource(dir string) string {
	if strings.TrimSpace(dir) == "" {
		return "the embedded default bundle"
	}
	return dir
}

func (g *globals) policyTestCmd() *cobra.Command {
	var dir string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test [--dir DIR] [-v]",
		Short: "Run the policy's own tests (test_* rules in *_test.rego), as opa test does",
		Long: `Runs every test_* rule of the policy bundle, as opa test does, and prints the report.
Exit 0 when they all pass, 1 when one fails, 2 when the bundle does not load (a file that does not
compile, named with its line; a group data.slipway.groups does not declare).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			passed, err := policy.Test(cmd.Context(), dir, g.streams.Out, verbose)
			var le *policy.LoadError
			switch {
			case errors.As(err, &le):
				return usageErr("policy %s does not load:\n%v", policySource(dir), err)
			case err != nil:
				return err
			case !passed:
				return failed
			}
			return nil
		},
	}
	policyDirFlag(cmd, &dir)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every test, and the trace of a failing one")
	return cmd
}

func (g *globals) policyCheckCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "check [--dir DIR]",
		Short: "Load and lint the policy as a worker would, and print its hash",
		Long: `Loads the bundle as the worker does at start: every .rego file must compile (an error names the file and
line), every group the policies name must be declared in data.slipway.groups, and data.slipway.decision
must be defined. Prints the hash that every decision records (sha256 of the files by path). Exit 2 when it
does not load.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := loadPolicy(dir)
			if err != nil {
				return err
			}
			g.printf("ok: %s\nhash: %s\n", policySource(dir), e.Hash())
			return nil
		},
	}
	policyDirFlag(cmd, &dir)
	return cmd
}

func (g *globals) policyEvalCmd() *cobra.Command {
	var dir string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "eval [--dir DIR] INPUT.json",
		Short: "Print the policy's decision on an input document (- reads stdin)",
		Long: `Decides on an input document (docs/policy.md describes it) as the worker would, and prints the decision
as JSON (-o yaml: YAML). Exit 0 whatever the decision; 2 for input the policy cannot decide on, naming the field.`,
		Args: exactArgs(1, "INPUT.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := loadPolicy(dir)
			if err != nil {
				return err
			}
			var raw []byte
			if args[0] == "-" {
				raw, err = io.ReadAll(g.streams.In)
			} else {
				raw, err = os.ReadFile(args[0])
			}
			if err != nil {
				return usageErr("%v", err)
			}
			var in policy.Input
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return usageErr("%s: not a policy input document: %v", args[0], err)
			}
			d, err := e.Decide(cmd.Context(), in)
			var ie *policy.InputError
			if errors.As(err, &ie) {
				return usageErr("%s: %v", args[0], err)
			}
			if err != nil {
				return err
			}
			return g.output(out, d, nil)
		},
	}
	policyDirFlag(cmd, &dir)
	out = outputFlag(cmd, formatJSON, formatYAML)
	return cmd
}
