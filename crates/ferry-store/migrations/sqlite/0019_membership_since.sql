-- When a user became a member of an organisation: its administrators see the server-wide
-- records about the user (sign-ins, credentials) from then on, not from before they joined.
-- Memberships granted before this column existed have none, and keep showing everything.
ALTER TABLE memberships ADD COLUMN granted_at TEXT;
