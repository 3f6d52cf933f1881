package notify

import (
	"context"
	"encoding/json"
	"strings"
)

// slackMessage is a Slack incoming-webhook payload.
type slackMessage struct {
	Text string `json:"text"`
}

// deliverSlack POSTs a one-line summary of ev to a Slack incoming webhook.
func (s *Sender) deliverSlack(ctx context.Context, sink Sink, ev Event) error {
	body, err := json.Marshal(slackMessage{Text: slackText(ev)})
	if err != nil {
		return permanent(sink, "cannot encode the message: "+err.Error())
	}
	return s.post(ctx, sink, body, nil)
}

// slackText is one line, e.g.
//
//	slipway Failed: acme/web (DeploymentFailed, step apply): apply timed out · <https://git.example.com/mr/7|merge request>
//
// Text from the event is escaped as Slack requires (&, <, >), so it cannot forge links or mentions.
func slackText(ev Event) string {
	var b strings.Builder
	b.WriteString("slipway " + slackEscape(string(ev.Kind)))
	if subj := ev.subject(); subj != "" {
		b.WriteString(": " + slackEscape(subj))
	}
	var attrs []string
	if ev.State != "" {
		attrs = append(attrs, slackEscape(ev.State))
	}
	if ev.Step != "" {
		attrs = append(attrs, "step "+slackEscape(ev.Step))
	}
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, ", ") + ")")
	}
	if msg := oneLine(ev.Message); msg != "" {
		b.WriteString(": " + slackEscape(msg))
	}
	if ev.MR != nil && ev.MR.URL != "" {
		link := strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C", " ", "%20").Replace(ev.MR.URL)
		b.WriteString(" · <" + link + "|merge request>")
	}
	return b.String()
}

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func slackEscape(s string) string { return slackEscaper.Replace(oneLine(s)) }
