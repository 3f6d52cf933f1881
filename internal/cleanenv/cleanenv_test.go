package cleanenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secret = "attestkey-cleanenv-value"

// TestReexecHidesTheEnvironment runs this test binary as a process with a key in its
// environment: after Reexec its /proc/self/environ holds neither the key nor its name, and the
// program still reads it, as does a child it starts.
func TestReexecHidesTheEnvironment(t *testing.T) {
	if os.Getenv("CLEANENV_HELPER") == "1" {
		helper()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReexecHidesTheEnvironment$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CLEANENV_HELPER=1", "SLIPWAY_ATTEST_KEY="+secret, "GOGC=150")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got := string(out)
	t.Log(got)
	environ := between(got, "environ[", "]")
	assert.NotContains(t, environ, secret)
	assert.NotContains(t, environ, "SLIPWAY_ATTEST_KEY")
	assert.NotContains(t, environ, "CLEANENV_HELPER")
	assert.Contains(t, environ, "GOGC=150", "the runtime's settings stay")
	assert.Contains(t, got, "getenv["+secret+"]", "the program reads the key as before")
	assert.Contains(t, got, "child["+secret+"]", "a child it starts inherits it as before")
	assert.Contains(t, got, "fd-var[]", EnvFD+" is gone once read")
}

func helper() {
	if err := Reexec(); err != nil {
		fmt.Println("reexec:", err)
		os.Exit(1)
	}
	environ, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	child, _ := exec.Command("sh", "-c", "printf %s \"$SLIPWAY_ATTEST_KEY\"").Output()
	fmt.Printf("environ[%s]\ngetenv[%s]\nchild[%s]\nfd-var[%s]\n", bytes.ReplaceAll(environ, []byte{0}, []byte{' '}),
		os.Getenv("SLIPWAY_ATTEST_KEY"), child, os.Getenv(EnvFD))
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	before, _, _ := strings.Cut(after, to)
	return before
}
