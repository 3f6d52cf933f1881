package workerapp

import (
	"strings"
	"testing"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
)

// A worker without the attestation key would run anyone's requests: it does not start, and
// the error says which variables to set.
func TestWorkerRefusesToStartWithoutAttestationKey(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // no dev key either
	t.Setenv(attest.EnvKey, "")
	t.Setenv(attest.EnvKeyFile, "")
	line, err := codec.Generate("t")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := codec.Parse("test", line)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Interceptors(Config{Keys: keys})
	if err == nil {
		t.Fatal("a worker without an attestation key got its interceptors")
	}
	for _, want := range []string{"refusing to start", attest.EnvKey, attest.EnvKeyFile} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	key, _ := attest.Generate()
	t.Setenv(attest.EnvKey, key)
	if ics, err := Interceptors(Config{Keys: keys}); err != nil || len(ics) != 3 {
		t.Fatalf("with SLIPWAY_ATTEST_KEY: %v, %d interceptors", err, len(ics))
	}
	t.Setenv(attest.EnvKey, "bm90IGEga2V5")
	if _, err := Interceptors(Config{Keys: keys}); err == nil || !strings.Contains(err.Error(), attest.EnvKey) {
		t.Fatalf("a bad key is accepted: %v", err)
	}
}
