/**
 * What the rule services tell the running alarm engine (AlarmEngine, handed to them by the
 * server): a project's rules changed, so its rule cache and states follow the database. Undefined
 * without a running engine (an app built only to inspect routes): there is nothing to tell.
 */
export type RuleChangeListener = {
  rulesChanged(projectId: string, resetRuleId?: string): void;
};
