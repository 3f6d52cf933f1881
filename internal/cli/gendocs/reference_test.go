package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed CLI reference is what the code generates: a changed flag or command fails here,
// naming the stale page and the command that regenerates it. Not parallel: it clears the environment.
func TestCLIReferenceIsCurrent(t *testing.T) {
	// Settings of the machine that runs it must not reach the pages.
	t.Setenv("SLIPWAY_TASK_QUEUE", "elsewhere")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	fresh := t.TempDir()
	require.NoError(t, WriteReference(fresh))
	require.Equal(t, "elsewhere", os.Getenv("SLIPWAY_TASK_QUEUE"), "WriteReference did not put the environment back")

	committed := filepath.Join("..", "..", "..", filepath.FromSlash(ReferenceDir))
	want := pages(t, fresh)
	got := pages(t, committed)
	require.Contains(t, want, "slipway.md", "the generator wrote no root page")
	require.Greater(t, len(want), 30, "the generator wrote too few pages")
	for _, name := range sortedKeys(want) {
		path := ReferenceDir + "/" + name
		switch have, ok := got[name]; {
		case !ok:
			t.Errorf("%s is missing: run %s", path, ReferenceCommand)
		case !bytes.Equal(have, want[name]):
			t.Errorf("%s is stale: run %s", path, ReferenceCommand)
		}
	}
	for _, name := range sortedKeys(got) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s documents no command: run %s", ReferenceDir+"/"+name, ReferenceCommand)
		}
	}
	for name, page := range want {
		require.NotContains(t, string(page), "elsewhere", "%s took a default from the environment", name)
		require.NotContains(t, string(page), "Auto generated", "%s carries cobra's dated footer", name)
	}
}

// pages are the Markdown files of dir by name.
func pages(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = data
	}
	return out
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
