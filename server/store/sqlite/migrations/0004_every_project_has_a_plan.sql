-- Spec §2: BillingUsage.plan is starter, professional or enterprise, never null. New projects
-- start on starter (createProject); projects created before that get starter here, starting now
-- (epoch ms). No invoice is issued for the running month: the monthly job bills from the next.
INSERT INTO `subscriptions` (`project_id`, `plan`, `started_at`, `updated_at`)
SELECT `id`, 'starter', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
       CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
FROM `projects`
WHERE `id` NOT IN (SELECT `project_id` FROM `subscriptions`);
