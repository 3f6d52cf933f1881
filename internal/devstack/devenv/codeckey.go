package devenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

// devKeyring returns the configured payload key, or else STATEDIR/codec.keys,
// created (0600, one new key) on first use so a fresh machine just works.
// keyFile is the file used, "" when the key came from SLIPWAY_CODEC_KEY.
func devKeyring(stateDir string) (k *codec.Keyring, keyFile string, err error) {
	k, err = codec.FromEnv()
	var nk *codec.NoKeyError
	if !errors.As(err, &nk) {
		return k, os.Getenv(codec.EnvKeyFile), err
	}
	path := filepath.Join(stateDir, codec.KeyFileName)
	if err := createKeyFile(path); err != nil {
		return nil, "", err
	}
	k, err = codec.ParseFile(path)
	return k, path, err
}

// createKeyFile writes a new key to path unless the file exists.
func createKeyFile(path string) error {
	line, err := codec.Generate(codec.DefaultKeyID(time.Now()))
	if err != nil {
		return err
	}
	data := fmt.Sprintf("# slipway payload encryption keys (ID:BASE64KEY); the first one encrypts.\n%s\n", line)
	if _, err := localdirs.CreateOnce(path, []byte(data), 0o600); err != nil {
		return fmt.Errorf("write dev codec key %s: %w", path, err)
	}
	return nil
}

// devAttestKeyring returns the configured attestation key ring, or else STATEDIR/attest.key,
// created on first use: the dev key is root on a dev box, like a kind cluster's admin kubeconfig.
// keyFile is the file used, "" when the key came from SLIPWAY_ATTEST_KEY.
func devAttestKeyring(stateDir string) (k *attest.Keyring, keyFile string, err error) {
	if os.Getenv(attest.EnvKey) != "" || os.Getenv(attest.EnvKeyFile) != "" {
		k, err = attest.Load()
		return k, os.Getenv(attest.EnvKeyFile), err
	}
	path, err := attest.EnsureDevKey(stateDir)
	if err != nil {
		return nil, "", err
	}
	k, err = attest.ParseFile(path)
	return k, path, err
}
