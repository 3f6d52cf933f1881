package codec

import (
	"crypto/rand"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// Payload metadata the codec writes.
const (
	MetadataEncoding  = "encoding"
	MetadataKeyID     = "encryption-key-id"
	EncodingEncrypted = "binary/encrypted"
	// EncodingCompressed is the SDK zlib codec's encoding, inside the seal of a payload over CompressAbove.
	EncodingCompressed = "binary/zlib"
)

// Codec seals whole payloads (data and metadata) with the keyring's active key.
type Codec struct{ keys *Keyring }

var _ converter.PayloadCodec = (*Codec)(nil)

// New returns the codec for k.
func New(k *Keyring) *Codec { return &Codec{keys: k} }

// DataConverter is the SDK's default converter with every payload encrypted by k.
func DataConverter(k *Keyring) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), New(k))
}

// FailureConverter is every slipway client's and worker's: an error's message and stack trace
// go into the encoded attributes, sealed by dc like its details, so no failure in history
// (activity, child or workflow) is readable without the key; the codec's /decode opens them.
func FailureConverter(dc converter.DataConverter) converter.FailureConverter {
	return temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dc, EncodeCommonAttributes: true})
}

// CompressAbove is the size over which a payload is compressed (the SDK's zlib codec) before it
// is sealed: a fleet's records (a rollout's state, a preview, a sweep) repeat themselves, and
// Temporal refuses a payload over 2 MiB, which a rollout's state of 10,000 instances nears (1.9 MB).
// Only those are compressed, so the sealed length of an instance's payloads says nothing of their content.
const CompressAbove = 64 << 10

var zlibCodec = converter.NewZlibCodec(converter.ZlibCodecOptions{}) // kept only when smaller

// Encode marshals each payload and seals it: data = nonce || ciphertext, with the
// key ID as additional data so a swapped encryption-key-id fails authentication.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	id := c.keys.active
	aead := c.keys.aeads[id]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if proto.Size(p) > CompressAbove {
			z, err := zlibCodec.Encode([]*commonpb.Payload{p})
			if err != nil {
				return nil, fmt.Errorf("encrypt payload: compress: %w", err)
			}
			p = z[0]
		}
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encrypt payload: marshal: %w", err)
		}
		nonce := make([]byte, aead.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return nil, fmt.Errorf("encrypt payload: nonce: %w", err)
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{MetadataEncoding: []byte(EncodingEncrypted), MetadataKeyID: []byte(id)},
			Data:     aead.Seal(nonce, nonce, plain, []byte(id)),
		}
	}
	return out, nil
}

// Decode opens encrypted payloads; others (recorded before encryption) pass through unchanged.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[MetadataEncoding]) != EncodingEncrypted {
			out[i] = p
			continue
		}
		dec, err := c.open(p)
		if err != nil {
			return nil, err
		}
		out[i] = dec
	}
	return out, nil
}

func (c *Codec) open(p *commonpb.Payload) (*commonpb.Payload, error) {
	id := string(p.GetMetadata()[MetadataKeyID])
	aead, ok := c.keys.aeads[id]
	if !ok {
		return nil, &UnknownKeyError{ID: id}
	}
	data := p.GetData()
	if len(data) < aead.NonceSize()+aead.Overhead() {
		return nil, &DecryptError{KeyID: id, Reason: fmt.Sprintf("data too short (%d bytes)", len(data))}
	}
	nonce, sealed := data[:aead.NonceSize()], data[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, sealed, []byte(id))
	if err != nil {
		return nil, &DecryptError{KeyID: id, Reason: "authentication failed (wrong key, or the payload or its key id was altered)"}
	}
	dec := &commonpb.Payload{}
	if err := proto.Unmarshal(plain, dec); err != nil {
		return nil, &DecryptError{KeyID: id, Reason: "decrypted data is not a payload: " + err.Error()}
	}
	if string(dec.GetMetadata()[MetadataEncoding]) == EncodingCompressed {
		z, err := zlibCodec.Decode([]*commonpb.Payload{dec})
		if err != nil {
			return nil, &DecryptError{KeyID: id, Reason: "decrypted data does not decompress: " + err.Error()}
		}
		dec = z[0]
	}
	return dec, nil
}
