package contract

// Delivery is a webhook delivery the server verified and recorded: its workflow
// carries out the commands after the forge has had its answer.
type Delivery struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	Actor    string `json:"actor"`
	// User and UserID are the forge account that pushed, merged or commented, as the signed
	// payload names it: the actor of the delivery's requests (identity.Actor of kind forge).
	User   string `json:"user,omitempty"`
	UserID string `json:"userID,omitempty"`
	// Commands are the [slipway][op] lines of a push, parsed by the server.
	Commands []DeliveryCommand `json:"commands,omitempty"`
	// Merge is a merged pull request whose instance changes the workflow reads.
	Merge *MergeRange `json:"merge,omitempty"`
	// Approvals are `/slipway approve|reject` comments on instances' MRs, parsed by the server.
	Approvals []ApprovalCommand `json:"approvals,omitempty"`
	// Refused are lines or requests the server refused, kept with the delivery's record.
	Refused          []DeliveryOutcome `json:"refused,omitempty"`
	AllowDeprovision bool              `json:"allowDeprovision,omitempty"`
}

// DeliveryCommand is one operation a delivery asks for.
type DeliveryCommand struct {
	Operation string `json:"operation"`
	Ref       Ref    `json:"ref"`
	Rev       string `json:"rev"` // the commit whose instance file configures it
	// Repo is the repository the command came from; with the provider, the commit, the
	// operation and the instance it keys the request, so a replay under a new delivery ID is the same request.
	Repo string `json:"repo,omitempty"`
	// Author is the commit's (or merged request's) author, recorded beside the forge user.
	Author string `json:"author,omitempty"`
	// Adopt: the push put the config on main itself (Grove's local create); the provision records Rev, opens no MR.
	Adopt bool `json:"adopt,omitempty"`
}

// MergeRange is a merged pull request: its base and merge commits.
type MergeRange struct {
	Base   string `json:"base"`
	Merge  string `json:"merge"`
	Repo   string `json:"repo,omitempty"`   // the repository merged into, keys each command's request
	Author string `json:"author,omitempty"` // who opened the merged request
}

// SubmitInput asks the instance to take one command of a delivery.
type SubmitInput struct {
	Delivery string `json:"delivery"` // provider/ID
	Actor    string `json:"actor"`
	Index    int    `json:"index"` // the command's place in the delivery keys its request
	// Provider, User and UserID name the forge account that pushed or merged: the request's actor.
	Provider string          `json:"provider,omitempty"`
	User     string          `json:"user,omitempty"`
	UserID   string          `json:"userID,omitempty"`
	Command  DeliveryCommand `json:"command"`
}

// DeliveryOutcome is what became of one command: started, or refused and why.
type DeliveryOutcome struct {
	Instance  string `json:"instance,omitempty"`
	Operation string `json:"operation,omitempty"`
	Request   string `json:"request,omitempty"`
	Workflow  string `json:"workflow,omitempty"`
	Started   bool   `json:"started"`
	Error     string `json:"error,omitempty"`
}

// DeliveryResult is the delivery workflow's record: one outcome per command.
type DeliveryResult struct {
	Delivery string            `json:"delivery"`
	Outcomes []DeliveryOutcome `json:"outcomes"`
}

// DeliveryWorkflowName is the workflow type of one recorded webhook delivery.
const DeliveryWorkflowName = "WebhookDeliveryWorkflow"

// DeliveryWorkflowID is one per forge delivery, so a redelivery finds the record instead of
// starting again.
func DeliveryWorkflowID(provider, delivery string) string {
	return "delivery/" + provider + "/" + delivery
}
