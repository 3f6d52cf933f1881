package escaping

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A real /bin/sh runs the rendered script: every hostile value comes out as itself, in every
// quoting, and nothing it holds is executed (no marker file).
func TestShellRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	values := []string{"$(touch " + marker + ")", "`touch " + marker + "`", "'; touch " + marker + "; '", "\"; touch " + marker + "; \"",
		"a\ntouch " + marker, "${HOME}", "\\", "*", "-n"}
	for _, v := range values {
		for _, tmpl := range []string{"printf '%s|' {{ .V }}", `printf '%s|' "{{ .V }}"`, "printf '%s|' 'x{{ .V }}y'", `printf '%s|' "$(printf '%s' "{{ .V }}")"`} {
			script, err := render(t, Shell{}, tmpl, v)
			require.NoError(t, err)
			out, err := exec.Command("/bin/sh", "-c", script).Output()
			require.NoError(t, err, script)
			want := v
			if tmpl == "printf '%s|' 'x{{ .V }}y'" {
				want = "x" + v + "y"
			}
			assert.Equal(t, want+"|", string(out), script)
			_, err = os.Stat(marker)
			require.True(t, os.IsNotExist(err), "%q ran a command: %s", v, script)
		}
	}
}
