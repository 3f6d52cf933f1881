package terraform

import (
	"fmt"
	"os"
	"os/exec"
)

// Environment variables read by this package or by the code that wires it.
const (
	// EnvBinary overrides where the terraform binary is.
	EnvBinary = "SLIPWAY_TERRAFORM"
	// EnvPGConn is where wiring code finds the connection string for WithPGBackend.
	EnvPGConn = "SLIPWAY_TF_PG_CONN"
)

// FindBinary returns the terraform binary: explicit if non-empty, else $SLIPWAY_TERRAFORM,
// else `terraform` on PATH. A miss is a *NotFoundError that says how to install it.
func FindBinary(explicit string) (string, error) {
	if explicit != "" {
		return checkExecutable(explicit, "explicit path "+explicit)
	}
	if env := os.Getenv(EnvBinary); env != "" {
		return checkExecutable(env, "$"+EnvBinary+"="+env)
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		return "", &NotFoundError{Looked: []string{"$" + EnvBinary + " (unset)", "terraform on PATH"}, Reason: err.Error()}
	}
	return p, nil
}

func checkExecutable(path, where string) (string, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "", &NotFoundError{Looked: []string{where}, Reason: err.Error()}
	case st.IsDir():
		return "", &NotFoundError{Looked: []string{where}, Reason: "is a directory"}
	case st.Mode().Perm()&0o111 == 0:
		return "", &NotFoundError{Looked: []string{where}, Reason: fmt.Sprintf("not executable (mode %v)", st.Mode().Perm())}
	}
	return path, nil
}
