package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/slipway-dev/slipway/internal/cli"
)

// ReferenceDir is where the CLI reference lives in the repository, one Markdown page a command.
const ReferenceDir = "docs/reference/cli"

// ReferenceCommand regenerates the reference; a stale page's test failure names it.
const ReferenceCommand = "make docs (go run ./internal/cli/gendocs " + ReferenceDir + ")"

// placeholders stand in the reference for the defaults taken from the machine it is generated on.
var placeholders = map[string]string{
	"SLIPWAY_NOTE":   "USER@HOST",       // --note: the local user and host
	"XDG_STATE_HOME": "$XDG_STATE_HOME", // --state-dir: under the user's state dir
}

// WriteReference writes one Markdown page per available command of the CLI into dir, replacing
// the slipway*.md pages there (a removed command's page goes too). The pages depend on the code
// only: flag defaults are read with no SLIPWAY_, TEMPORAL_ or OTEL_ variable set (restored after),
// so it must not run beside tests that read those.
func WriteReference(dir string) error {
	defer neutralEnv()()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "slipway*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	root := cli.NewRoot(cli.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	// What Execute adds before it runs: the reference shows what a user can type.
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	var forPages func(*cobra.Command)
	forPages = func(c *cobra.Command) {
		c.DisableAutoGenTag = true // its footer carries the date: pages would change every day
		// The texts go into Markdown as they are: a forge would take <Op> or <ID> for HTML and drop it.
		c.Short, c.Long = escapeProse(c.Short), escapeProse(c.Long)
		for _, sub := range c.Commands() {
			forPages(sub)
		}
	}
	forPages(root)
	return doc.GenMarkdownTreeCustom(root, dir, func(string) string { return "" }, func(name string) string { return name })
}

// escapeProse escapes < outside indented lines, which Markdown shows as code, entities and all.
func escapeProse(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") {
			lines[i] = strings.ReplaceAll(l, "<", "&lt;")
		}
	}
	return strings.Join(lines, "\n")
}

// neutralEnv clears the variables flag defaults read, sets the placeholders and returns what
// puts the environment back.
func neutralEnv() (restore func()) {
	saved := map[string]*string{}
	save := func(k string) {
		if v, ok := os.LookupEnv(k); ok {
			saved[k] = &v
		} else {
			saved[k] = nil
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SLIPWAY_") || strings.HasPrefix(k, "TEMPORAL_") || strings.HasPrefix(k, "OTEL_") {
			save(k)
			_ = os.Unsetenv(k)
		}
	}
	for k, v := range placeholders {
		if _, ok := saved[k]; !ok {
			save(k)
		}
		_ = os.Setenv(k, v)
	}
	return func() {
		for k, v := range saved {
			if v == nil {
				_ = os.Unsetenv(k)
			} else {
				_ = os.Setenv(k, *v)
			}
		}
	}
}
