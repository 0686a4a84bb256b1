-- An approval with edits (issue 34): the arguments the inspector changed before approving, as
-- JSON; NULL for an approval as asked and for every rejection. The audit log keeps both: the
-- agent's arguments in `parameters`, what ran in `edited_args`.
ALTER TABLE approvals ADD COLUMN edited_args TEXT;
