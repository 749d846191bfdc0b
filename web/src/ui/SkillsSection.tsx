import { useEffect, useState } from "react";
import { api } from "../api/client";
import type { SkillInfo } from "../api/protocol.gen";

/**
 * The user's skills (AVA_HOME/skills) with a switch each, user-wide. New and
 * reopened conversations follow a change; loaded ones keep what they started with.
 */
export function SkillsSection() {
  const [skills, setSkills] = useState<SkillInfo[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api.skills().then((r) => setSkills(r.skills), (e: Error) => setError(e.message));
  }, []);
  const toggle = (skill: SkillInfo) => {
    setError("");
    api.setSkill(skill.name, { enabled: !skill.enabled }).then((r) => setSkills(r.skills), (e: Error) => setError(e.message));
  };
  return (
    <section aria-label="Skills">
      <h2>Skills</h2>
      {error && <div role="alert" className="error-banner">{error}</div>}
      {!skills ? (
        !error && <p>Loading…</p>
      ) : skills.length === 0 ? (
        <p className="muted">
          No skills. A skill is a folder with a <code>SKILL.md</code> under <code>~/.ava/skills</code> (or a project's{" "}
          <code>.ava/skills</code>).
        </p>
      ) : (
        <table className="skills">
          <caption className="sr-only">Skills</caption>
          <thead>
            <tr>
              <th scope="col">Enabled</th>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {skills.map((s) => (
              <tr key={s.name} data-skill={s.name}>
                <td>
                  <input type="checkbox" checked={s.enabled} onChange={() => toggle(s)} aria-label={`Enable ${s.name}`} />
                </td>
                <th scope="row" className="mono" title={s.path}>
                  {s.name}
                  {s.setting !== "default" && <span className="badge">{s.setting} setting</span>}
                </th>
                <td>{s.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
