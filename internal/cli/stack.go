package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) stackCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stack",
		Short: "Stack releases: cut one, list them, point a channel, see which instances run which, preview an upgrade across the fleet, set an upgrade deadline (release, releases, channel, status, preview, deadline)",
		Long: `A stack release is an immutable version of stacks/<name>/: the commit it was cut from and the hash
of its files then, kept in the GitOps repository (releases/<name>/releases.yaml). An instance pins
one in its file (stack: web@1.5.0, or a channel: web@stable) and every render of it uses that
release's files, never main's head. Cutting a release and pointing a channel are platform
decisions: the policy decides them (operation "stack", every tenant) and the audit log keeps them.
See docs/releases.md.`,
	}
	cmd.AddCommand(g.stackReleaseCmd(), g.stackReleasesCmd(), g.stackChannelCmd(), g.stackStatusCmd(), g.stackPreviewCmd(), g.stackDeadlineCmd())
	return cmd
}

// stackRequest sends req through slipway server with --server, else to Temporal (signed): the
// policy decides on the verified actor either way.
func (g *globals) stackRequest(cmd *cobra.Command, req contract.StackRequest) (contract.StackResult, error) {
	var res contract.StackResult
	if !labelRE.MatchString(req.Stack) {
		return res, usageErr("STACK %q: must be a lowercase label (a-z, 0-9, -)", req.Stack)
	}
	req.ID = g.requestID
	if api, err := g.api(); err != nil {
		return res, err
	} else if api != nil {
		return api.StackRequest(cmd.Context(), req)
	}
	err := g.withSignedClient(cmd, func(c *client.Client) error {
		var err error
		res, err = c.StackRequest(cmd.Context(), req)
		return err
	})
	return res, err
}

func (g *globals) stackReleaseCmd() *cobra.Command {
	var notes, from string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "release STACK VERSION --notes TEXT [--from COMMIT]",
		Short: "Cut a release of a stack from main's head (or a commit): its files are checked and their hash recorded",
		Args:  exactArgs(2, "the stack and the version (semver, e.g. 1.5.0)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !config.IsVersion(args[1]) {
				return usageErr("VERSION %q: must be MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", args[1])
			}
			if strings.TrimSpace(notes) == "" {
				return usageErr("--notes: a release says what changed")
			}
			res, err := g.stackRequest(cmd, contract.StackRequest{Op: contract.StackOpRelease, Stack: args[0], Version: args[1], Notes: notes, From: from})
			if err != nil {
				return err
			}
			rel, _ := (&config.Releases{Stack: res.Stack, Releases: res.Releases}).Find(args[1])
			return g.output(out, rel, func(w io.Writer) {
				from := shortSHA(rel.Commit)
				if rel.Repo != "" {
					from += " of " + rel.Repo
				}
				fmt.Fprintf(w, "release %s@%s cut from %s (files %s)\n", res.Stack, rel.Version, from, rel.Tree)
			})
		},
	}
	cmd.Flags().StringVar(&notes, "notes", "", "the release notes (required)")
	cmd.Flags().StringVar(&from, "from", "", "the full commit SHA on main's history to cut from (default: main's head); the stacks repository's main when the worker has SLIPWAY_STACKS_REPO")
	out = outputFlag(cmd)
	return cmd
}

func (g *globals) stackReleasesCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "releases STACK",
		Short: "List a stack's releases, oldest first, and its channels",
		Args:  exactArgs(1, "the stack"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := g.stackRequest(cmd, contract.StackRequest{Op: contract.StackOpReleases, Stack: args[0]})
			if err != nil {
				return err
			}
			return g.output(out, res, func(w io.Writer) { writeReleases(w, res) })
		},
	}
	out = outputFlag(cmd)
	return cmd
}

func writeReleases(w io.Writer, res contract.StackResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tCHANNELS\tCOMMIT\tCUT BY\tCUT AT\tNOTES")
	for _, r := range res.Releases {
		var chans []string
		for _, c := range sortedChannels(res.Channels) {
			if res.Channels[c] == r.Version {
				chans = append(chans, c)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Version, dash(strings.Join(chans, ",")), shortSHA(r.Commit), dash(r.CutBy),
			r.CutAt.Format(time.DateTime), dash(firstLine(r.Notes)))
	}
	_ = tw.Flush()
	for _, c := range sortedChannels(res.Channels) {
		def := ""
		if c == res.Default {
			def = " (default: unpinned instances render it)"
		}
		fmt.Fprintf(w, "channel %s: %s%s\n", c, res.Channels[c], def)
	}
}

func (g *globals) stackChannelCmd() *cobra.Command {
	var makeDefault bool
	cmd := &cobra.Command{
		Use:   "channel STACK CHANNEL VERSION|head [--default]",
		Short: "Point a channel at a release (a promotion: one audited step); head is main's head, for a dev channel",
		Args:  exactArgs(3, "the stack, the channel and the release"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !labelRE.MatchString(args[1]) || config.IsVersion(args[1]) {
				return usageErr("CHANNEL %q: must be a lowercase label (a-z, 0-9, -), not a version", args[1])
			}
			if args[2] != config.ChannelHead && !config.IsVersion(args[2]) {
				return usageErr("VERSION %q: must be a release's version (semver, e.g. 1.5.0) or head", args[2])
			}
			res, err := g.stackRequest(cmd, contract.StackRequest{Op: contract.StackOpChannel, Stack: args[0], Channel: args[1], Version: args[2], Default: makeDefault})
			if err != nil {
				return err
			}
			g.printf("channel %s of %s is %s (merged %s)\n", args[1], res.Stack, res.Channels[args[1]], shortSHA(res.MergeSHA))
			return nil
		},
	}
	cmd.Flags().BoolVar(&makeDefault, "default", false, "make it the channel unpinned instances of the stack render")
	return cmd
}

func (g *globals) stackStatusCmd() *cobra.Command {
	var tenant, dir string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "status STACK [--tenant T] [--dir DIR]",
		Short: "How many instances run each release of a stack, Ready and not, per tenant (the skew), and each upgrade deadline's progress",
		Long: `How many instances of STACK run each release, Ready and not, per tenant (the skew), and each
upgrade deadline's progress, planned again inside the windows of the policy bundle (--dir). With
--server, only the tenants the signed-in person may read are counted (it says how many others run
the stack), the deadlines are shown to those who may read the stack's releases (every tenant), and
the windows are the server's bundle's (--dir is refused). See docs/releases.md.`,
		Args: exactArgs(1, "the stack"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !labelRE.MatchString(args[0]) {
				return usageErr("STACK %q: must be a lowercase label (a-z, 0-9, -)", args[0])
			}
			if tenant != "" && !labelRE.MatchString(tenant) {
				return usageErr("--tenant %q: must be a lowercase label (a-z, 0-9, -)", tenant)
			}
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				if cmd.Flags().Changed("dir") {
					return usageErr("--dir: through --server the deadlines' progress is planned inside the server's own policy bundle's windows (the workers'); leave --dir out")
				}
				st, err := api.StackStatus(cmd.Context(), args[0], tenant)
				if err != nil {
					return err
				}
				if st.DeadlinesNotShown != "" && out.value == formatText {
					fmt.Fprintf(g.streams.Err, "deadlines not shown: %s\n", st.DeadlinesNotShown)
				}
				return g.output(out, st.Counts, func(w io.Writer) {
					writeReleaseCounts(w, st.Counts)
					writeDeadlines(w, st.Deadlines)
					if st.HiddenTenants > 0 {
						fmt.Fprintf(w, "%d other tenant(s) run %s: not shown, you may not read them\n", st.HiddenTenants, args[0])
					}
				})
			}
			if err := g.withClient(cmd, func(c *client.Client) error {
				items, err := c.List(cmd.Context(), client.ListFilter{Stack: args[0], Tenant: tenant})
				if err != nil {
					return err
				}
				counts := client.CountReleases(items)
				if counts == nil {
					counts = []client.ReleaseCount{}
				}
				var progress []client.DeadlineStatus
				if out.value == formatText { // -o json keeps its shape: the counts; stack releases has the deadlines
					deadlines, ws := g.stackDeadlines(cmd, args[0], dir)
					progress = client.DeadlineProgress(ws, args[0], deadlines, items, time.Now())
				}
				return g.output(out, counts, func(w io.Writer) {
					writeReleaseCounts(w, counts)
					writeDeadlines(w, progress)
				})
			}); err != nil {
				return err
			}
			return g.releasesFileRefused(cmd, args[0])
		},
	}
	cmd.Flags().StringVar(&tenant, "tenant", "", "only this tenant's instances")
	policyDirFlag(cmd, &dir)
	out = outputFlag(cmd)
	return cmd
}

// releasesFileRefused is the refusal of the stack's releases file (a seal that does not verify, an
// earlier file restored on main): every render of the stack fails on it, so the skew says so
// (exit 2, naming the file). Any other answer (not allowed to read every tenant, no file) adds nothing.
func (g *globals) releasesFileRefused(cmd *cobra.Command, stack string) error {
	var bad *client.InvalidConfigError
	if _, err := g.stackRequest(cmd, contract.StackRequest{Op: contract.StackOpReleases, Stack: stack}); errors.As(err, &bad) {
		return err
	}
	return nil
}

func writeReleaseCounts(w io.Writer, counts []client.ReleaseCount) {
	if len(counts) == 0 {
		fmt.Fprintln(w, "no running instances")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tTENANT\tREADY\tNOT READY\tTOTAL")
	for _, c := range counts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", cmpRelease(c.Release), c.Tenant, c.Ready, c.Total-c.Ready, c.Total)
	}
	_ = tw.Flush()
}

// cmpRelease names main's head for an unpinned instance.
func cmpRelease(r string) string {
	if r == "" {
		return "(main's head)"
	}
	return r
}

// releaseOf is the version of "web@1.5.0".
func releaseOf(ref string) string {
	_, v, _ := strings.Cut(ref, "@")
	return v
}

func sortedChannels(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
