import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline, sleep, waitFor } from "../testing/pipeline.ts";

type Alarm = {
  id: string;
  rule_id: string | null;
  active: boolean;
  source: string;
  returned_at: string | null;
};

/**
 * One answer on alarms (issue 8 §4, README "Who clears an alarm"): an alarm the agent raised is
 * the agent's to clear. A rule change on the server reaches the agent as a deployment; the agent,
 * applying it, returns the rule's alarms to normal and syncs that; the server records it.
 */
describe("alarms: server and agent agree across a rule change", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
    token = (await p.t.admin()).token;
    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  });
  afterAll(async () => {
    await agent.stop();
    await p.stop();
  });

  const serverAlarms = async (ruleId: string) => {
    const res = await p.t.request<Alarm[]>(`/api/alarms?project_id=${p.projectId}`, { token });
    expect(res.status).toBe(200);
    return res.body.filter((a) => a.rule_id === ruleId);
  };
  const agentActive = (ruleId: string) =>
    agent.localAlarms().filter((a) => a.rule_id === ruleId && a.returned_at === null);
  const rule = async (threshold: number) => {
    const res = await p.t.request<{ id: string }>("/api/alert-rules", {
      token,
      body: {
        project_id: p.projectId,
        name: "Wellhead pressure above threshold",
        variable_alias: "wellhead_pressure",
        condition: "gt",
        threshold,
        severity: "warning",
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const appliedVersion = () => agent.status().config?.version ?? 0;

  it("alarm active → rule disabled → deployment applied by the agent → cleared on both sides, never re-raised", async () => {
    // The well's pressure is always above -1: the rule raises as soon as the agent runs it.
    const ruleId = await rule(-1);
    const raised = await waitFor("the agent's alarm on the server", async () => {
      const [a] = await serverAlarms(ruleId);
      return a?.active ? a : undefined;
    });
    expect(raised.source).toBe("agent");
    expect(agentActive(ruleId).map((a) => a.id)).toEqual([raised.id]);
    const runningBefore = appliedVersion();

    const toggled = await p.t.request(`/api/alert-rules/${ruleId}/toggle`, { method: "PATCH", token });
    expect(toggled.status).toBe(200);
    // Until the agent applies the deployment, it still runs the rule: both sides say active.
    expect((await serverAlarms(ruleId)).map((a) => a.active)).toEqual([true]);
    expect(agentActive(ruleId)).toHaveLength(1);

    // Auto-deploy sends the configuration without the rule; the agent applies it.
    await waitFor("the agent to apply the new configuration", () =>
      appliedVersion() > runningBefore ? true : undefined,
    );
    expect(agentActive(ruleId)).toEqual([]);
    const cleared = await waitFor("the agent's clear on the server", async () => {
      const list = await serverAlarms(ruleId);
      return list.every((a) => !a.active) ? list : undefined;
    });
    expect(cleared.map((a) => a.id)).toEqual([raised.id]);
    expect(cleared[0]?.returned_at).not.toBeNull();

    // The agent keeps polling; nothing is raised again on either side.
    p.moveWell(50);
    await sleep(1_500);
    p.stopWell();
    expect(agentActive(ruleId)).toEqual([]);
    expect((await serverAlarms(ruleId)).map((a) => [a.id, a.active])).toEqual([[raised.id, false]]);
  });

  it("a redefined rule: the agent returns the old alarm and raises a fresh one, the server records both", async () => {
    const ruleId = await rule(-2);
    const first = await waitFor("the first alarm on the server", async () => {
      const [a] = await serverAlarms(ruleId);
      return a?.active ? a : undefined;
    });
    const put = await p.t.request(`/api/alert-rules/${ruleId}`, {
      method: "PUT",
      token,
      body: {
        project_id: p.projectId,
        name: "Wellhead pressure above threshold",
        variable_alias: "wellhead_pressure",
        condition: "gt",
        threshold: -3,
        severity: "critical",
      },
    });
    expect(put.status).toBe(200);
    const both = await waitFor("the old alarm cleared and a fresh one raised", async () => {
      const list = await serverAlarms(ruleId);
      const old = list.find((a) => a.id === first.id);
      const fresh = list.find((a) => a.id !== first.id && a.active);
      return old && !old.active && fresh ? fresh : undefined;
    });
    expect(agentActive(ruleId).map((a) => a.id)).toEqual([both.id]);
    expect((await serverAlarms(ruleId)).filter((a) => a.active).map((a) => a.id)).toEqual([both.id]);
  });
});
