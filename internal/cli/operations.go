package cli

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func (g *globals) createCmd() *cobra.Command {
	var file string
	var wait bool
	var ow windowOverride
	cmd := &cobra.Command{
		Use:   "create TENANT/NAME -f FILE",
		Short: "Provision an instance: validate its config, render it into the GitOps repo through one MR, merge it",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if file == "" {
				return usageErr("-f/--file: create needs the instance file")
			}
			yaml, err := readConfig(file)
			if err != nil {
				return err
			}
			req := contract.OperationRequest{ConfigYAML: yaml}
			if err := ow.apply(&req); err != nil {
				return err
			}
			return g.submit(cmd.Context(), ref, lifecycle.OpProvision, req, wait)
		},
	}
	ow.flags(cmd)
	cmd.Flags().StringVarP(&file, "file", "f", "", "instance file (YAML: stack and parameters)")
	cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	return cmd
}

func (g *globals) deployCmd() *cobra.Command {
	var file string
	var wait bool
	var timeout time.Duration
	var ow windowOverride
	cmd := &cobra.Command{
		Use:   "deploy TENANT/NAME [-f FILE]",
		Short: "First deploy or update; with -f the changed config is validated and merged through its own MR first",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if timeout < 0 {
				return usageErr("--timeout: %s must not be negative", timeout)
			}
			req := contract.OperationRequest{DeployTimeout: timeout}
			if file != "" {
				if req.ConfigYAML, err = readConfig(file); err != nil {
					return err
				}
			}
			if err := ow.apply(&req); err != nil {
				return err
			}
			return g.submit(cmd.Context(), ref, lifecycle.OpDeploy, req, wait)
		},
	}
	ow.flags(cmd)
	cmd.Flags().StringVarP(&file, "file", "f", "", "changed instance file")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "deadline for the app to become Synced+Healthy (default: the instance's, 10m)")
	cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	return cmd
}

func (g *globals) simpleOpCmd(name, short string) *cobra.Command {
	var wait bool
	var ow windowOverride
	op, _ := lifecycle.ParseOperation(name)
	cmd := &cobra.Command{
		Use:   name + " TENANT/NAME",
		Short: short,
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			var req contract.OperationRequest
			if err := ow.apply(&req); err != nil {
				return err
			}
			return g.submit(cmd.Context(), ref, op, req, wait)
		},
	}
	ow.flags(cmd)
	cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	return cmd
}

func (g *globals) deprovisionCmd() *cobra.Command {
	var yes, wait bool
	var ow windowOverride
	cmd := &cobra.Command{
		Use:   "deprovision TENANT/NAME --yes",
		Short: "Destroy everything and remove the config through an MR. Final.",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if !yes {
				return usageErr("--yes: deprovision of %s is final (infrastructure destroyed, config removed); confirm with --yes", ref)
			}
			req := contract.OperationRequest{Confirm: true}
			if err := ow.apply(&req); err != nil {
				return err
			}
			return g.submit(cmd.Context(), ref, lifecycle.OpDeprovision, req, wait)
		},
	}
	ow.flags(cmd)
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm: deprovision cannot be undone")
	cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	return cmd
}

// submit checks the request against the instance, validates any config on a
// worker, sends the update and, with wait, follows it to the end. With --server the
// server does the same as the signed-in person.
func (g *globals) submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, req contract.OperationRequest, wait bool) error {
	req.Actor = g.actor
	api, err := g.api()
	if err != nil {
		return err
	}
	if api != nil {
		acc, err := api.Submit(ctx, ref, op, req, g.requestID)
		if err != nil {
			return err
		}
		g.printf("accepted: %s of %s (request %s)\n", op, ref, acc.RequestID)
		if !wait {
			return nil
		}
		return g.followAPI(ctx, api, ref, acc.RequestID)
	}
	c, err := g.dialSigned(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Precheck(ctx, ref, op, req); err != nil {
		return err
	}
	h, err := g.accepting(ctx, func(ctx context.Context) (*client.Handle, error) {
		return c.Submit(ctx, ref, op, req, g.requestID)
	})
	if err != nil {
		return err
	}
	g.printf("accepted: %s of %s (request %s)\n", op, ref, h.RequestID)
	if !wait {
		return nil
	}
	return g.follow(ctx, c, h)
}

// readConfig reads an instance file and checks its syntax locally, with config.ParseInstance (the
// validate activity's first step), so that an error names the file and needs no server.
func readConfig(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", usageErr("-f/--file: %v", err)
	}
	if _, err := config.ParseInstance(data); err != nil {
		return "", usageErr("%s: %v", path, err)
	}
	return string(data), nil
}
