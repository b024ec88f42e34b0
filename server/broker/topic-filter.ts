/**
 * Whether a subscription filter matches a topic name (MQTT 3.1.1 §4.7): `+` is exactly one level,
 * a trailing `#` any number of levels, none included [MQTT-4.7.1-2]; a filter starting with a
 * wildcard does not match a topic starting with `$` [MQTT-4.7.2-1].
 */
export function filterMatches(filter: string, topic: string): boolean {
  if (topic.startsWith("$") && (filter.startsWith("+") || filter.startsWith("#"))) return false;
  let f = 0;
  let t = 0;
  for (;;) {
    const fEnd = levelEnd(filter, f);
    const level = filter.slice(f, fEnd);
    if (level === "#") return true;
    const tEnd = levelEnd(topic, t);
    if (level !== "+" && level !== topic.slice(t, tEnd)) return false;
    const filterDone = fEnd === filter.length;
    const topicDone = tEnd === topic.length;
    if (topicDone) return filterDone || filter.slice(fEnd + 1) === "#";
    if (filterDone) return false;
    f = fEnd + 1;
    t = tEnd + 1;
  }
}

function levelEnd(text: string, from: number): number {
  const slash = text.indexOf("/", from);
  return slash === -1 ? text.length : slash;
}
