# The configuration the plan fixtures were made from, with terraform v1.11.4:
#   create.json:  terraform plan on an empty state, then terraform show -json
#   replace.json: after an apply, terraform plan -var generation=2 (db replaced, cache updated)
#   destroy.json: after an apply, terraform plan -destroy
variable "generation" { default = 1 }
resource "terraform_data" "db" {
  triggers_replace = var.generation
  input            = "postgres"
}
resource "terraform_data" "cache" {
  input = "redis-${var.generation}"
}
