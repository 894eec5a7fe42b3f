-- What another tool last recorded of the resources a plan imports (a Terraform migration's
-- attributes, by resource name), sealed with the payload key like a preview's values: each
-- preview of the plan reads those resources as refreshes, with this as their prior state.
ALTER TABLE plans ADD COLUMN sealed_prior TEXT;
