package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/codec"
)

// codecCmd groups the payload-encryption helpers.
func (g *globals) codecCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "codec", Short: "Payload encryption keys (SLIPWAY_CODEC_KEY / SLIPWAY_CODEC_KEY_FILE)"}
	cmd.AddCommand(g.keygenCmd())
	return cmd
}

func (g *globals) keygenCmd() *cobra.Command {
	var id, out string
	cmd := &cobra.Command{
		Use:   "keygen [--id ID] [-o FILE]",
		Short: "Make a new random AES-256 key entry (ID:BASE64KEY)",
		Long: `Prints a new key entry, or writes it to a new 0600 file with -o (an existing file is never overwritten).
Use it as SLIPWAY_CODEC_KEY=ENTRY or SLIPWAY_CODEC_KEY_FILE=FILE for the worker, the CLI and the codec server.
To rotate, put the new entry first and keep the old ones after it (comma or newline separated) until
no history that uses them is left: the first key encrypts, every key decrypts.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id == "" {
				id = codec.DefaultKeyID(time.Now())
			}
			if !codec.ValidID(id) {
				return usageErr("--id: %q must match [A-Za-z0-9._-]{1,64}", id)
			}
			line, err := codec.Generate(id)
			if err != nil {
				return err
			}
			if out == "" {
				g.printf("%s\n", line)
				return nil
			}
			if err := writeNewKeyFile(out, line); err != nil {
				return err
			}
			g.printf("wrote key %s to %s\n  export %s=%s\n", id, out, codec.EnvKeyFile, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "key ID (default: k<today>, e.g. k20261122)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the entry to this new file (mode 0600) instead of stdout")
	return cmd
}

func writeNewKeyFile(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return usageErr("-o/--output: %s exists; refusing to overwrite a key file (add the new entry to it by hand, first)", path)
	}
	if err != nil {
		return usageErr("-o/--output: %v", err)
	}
	_, err = fmt.Fprintf(f, "# slipway payload encryption keys (ID:BASE64KEY); the first one encrypts.\n%s\n", line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
