package apiserver

import (
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
)

// Live event streams are bounded per person and in all, each refusal a 429 naming follow; a
// stream given back frees its place.
func TestStreamsAreBounded(t *testing.T) {
	var st streams
	for range maxStreamsPerPerson {
		require.NoError(t, st.take("alice", "alice"))
	}
	err := st.take("alice", "alice")
	var tm *TooManyError
	require.True(t, errors.As(err, &tm), "%v", err)
	rec := httptest.NewRecorder()
	require.Equal(t, 429, (&Server{}).writeErr(rec, err))
	require.Contains(t, rec.Body.String(), `"field":"follow"`)
	st.give("alice")
	require.NoError(t, st.take("alice", "alice"))
	for i := maxStreamsPerPerson; i < maxStreams; i++ {
		require.NoError(t, st.take(string(rune('a'+i%26))+"-person"+string(rune('a'+i/26)), "someone"))
	}
	require.Error(t, st.take("bob", "bob"), "the server's own bound")
	rec = httptest.NewRecorder()
	(&Server{}).writeErr(rec, badRequest("Last-Event-ID: %q is not an entry number", "x"))
	require.Contains(t, rec.Body.String(), `"field":"Last-Event-ID"`)
}

// The per-person bound counts the provider's subject: bob, who renamed himself alice at the
// provider (preferred_username), does not use up alice's streams, and one subject under two names
// is one person.
func TestStreamsCountThePersonNotTheName(t *testing.T) {
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp", Subject: "u-alice", Name: "alice"}
	bob := identity.Actor{Kind: identity.Person, Issuer: "https://idp", Subject: "u-bob", Name: "alice"}
	var st streams
	for range maxStreamsPerPerson {
		require.NoError(t, st.take(streamKey(bob), bob.String()))
	}
	require.NoError(t, st.take(streamKey(alice), alice.String()), "bob's streams are not alice's")
	renamed := bob
	renamed.Name = "bob"
	require.Error(t, st.take(streamKey(renamed), renamed.String()), "a new name is the same person")
}

// A stream ends when the token it was decided on expires: its expiry is the token's exp, and a
// token without one ends it at once.
func TestStreamsEndWithTheirToken(t *testing.T) {
	r := httptest.NewRequest("GET", "/v1/instances/acme/web/events?follow=1", nil)
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"exp":1900000000}`))
	r.Header.Set("Authorization", "Bearer e30."+payload+".sig")
	require.Equal(t, time.Unix(1900000000, 0).UTC(), tokenExpiry(r))
	r.Header.Set("Authorization", "Bearer not-a-jwt")
	require.WithinDuration(t, time.Now(), tokenExpiry(r), time.Second)
}
