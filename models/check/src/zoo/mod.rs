//! The bug zoo: historical lock-manager designs from the MySQL and MariaDB bug trackers,
//! each as a pair of small stateright models that drive the real
//! [`mdl_core::table::LockTable`]: the *old* design, which the checker must catch (a
//! property violated, with the shortest trace, by BFS), and the *fixed* design, whose
//! properties must hold over every reachable state.
//!
//! [`engine`] is the modelling engine (sessions running fixed programs, foreign
//! subsystems, the ground-truth wait-for graph, the properties); [`entries`] the entries;
//! this module runs them and renders the results (a table, JSON, the Markdown pages with
//! Mermaid sequence diagrams of the old designs' traces).

mod check;
pub mod engine;
pub mod entries;
pub mod latch;
mod sample;

pub use check::*;
use engine::{Check, Design, StepInfo};
use entries::Entry;
pub use sample::*;
use std::fmt::Write as _;

/// The entries whose id is `only` (or all).
pub fn select(only: Option<&str>) -> Result<Vec<Entry>, String> {
    let all = entries::all();
    match only {
        None => Ok(all),
        Some(name) => {
            let ids: Vec<&str> = all.iter().map(|e| e.id).collect();
            let ids = ids.join(", ");
            let v: Vec<Entry> = all.into_iter().filter(|e| e.id == name).collect();
            if v.is_empty() {
                Err(format!("unknown zoo entry `{name}` (entries: {ids})"))
            } else {
                Ok(v)
            }
        }
    }
}

/// The results as a text table.
pub fn table(rs: &[EntryResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:<6} {:<55} {:>5} {:>8} {:>7} | {:<5} {:>8} {:>7}",
        "entry", "old", "violated property", "trace", "states", "ms", "new", "states", "ms"
    );
    for r in rs {
        let _ = writeln!(
            out,
            "{:<24} {:<6} {:<55} {:>5} {:>8} {:>7} | {:<5} {:>8} {:>7}",
            r.id,
            if r.old.property.is_some() {
                "CAUGHT"
            } else {
                "MISSED"
            },
            r.old.property.as_deref().unwrap_or("-"),
            r.old.trace_len,
            r.old.states,
            r.old.millis,
            if r.new.failed.is_empty() {
                "HOLDS"
            } else {
                "FAILS"
            },
            r.new.states,
            r.new.millis,
        );
        for f in &r.new.failed {
            let _ = writeln!(out, "    new design fails: {f}");
        }
        if let Some(l) = &r.old.lasso {
            let _ = writeln!(
                out,
                "    old design starves: {} steps, then a cycle of {} steps for ever",
                l.prefix_len, l.cycle_len
            );
        }
        for v in &r.variants {
            let _ = writeln!(
                out,
                "    variant {}: {} ({} states){}",
                v.label,
                v.property.as_deref().unwrap_or("every property holds"),
                v.states,
                if v.ok() { "" } else { "  UNEXPECTED" }
            );
        }
    }
    let ok = rs.iter().filter(|r| r.ok()).count();
    let _ = writeln!(
        out,
        "{ok}/{} entries: old design caught and new design holds",
        rs.len()
    );
    out
}

fn participant(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn mermaid_text(s: &str) -> String {
    // Mermaid treats `;` and `#` specially in messages (`#35;` is its entity code for `#`).
    s.replace(';', ",").replace('#', "#35;")
}

/// The old design's trace as a Mermaid `sequenceDiagram`.
pub fn mermaid(m: &Design, steps: &[StepInfo], note: Option<&str>) -> String {
    mermaid_lasso(m, steps, &[], note)
}

/// A trace followed by a cycle that repeats for ever (drawn as a Mermaid `loop`).
pub fn mermaid_lasso(
    m: &Design,
    steps: &[StepInfo],
    cycle: &[StepInfo],
    note: Option<&str>,
) -> String {
    let mut out = String::from("```mermaid\nsequenceDiagram\n");
    for p in &m.progs {
        let _ = writeln!(out, "    participant {}", participant(p.name));
    }
    let mut subs: Vec<&str> = vec!["MDL"];
    for rd in &m.res {
        if !subs.contains(&rd.subsystem) {
            subs.push(rd.subsystem);
        }
    }
    if m.progs.iter().any(|p| {
        p.ops
            .iter()
            .any(|(o, _)| matches!(o, engine::Op::Create(..) | engine::Op::PurgeWait))
    }) && !subs.contains(&"InnoDB")
    {
        subs.push("InnoDB");
    }
    for s in &subs {
        let _ = writeln!(out, "    participant {} as {}", participant(s), s);
    }
    let n = steps.len();
    for (i, st) in steps.iter().chain(cycle).enumerate() {
        if i == n && !cycle.is_empty() {
            out.push_str("    loop repeats for ever\n");
        }
        let who = participant(m.progs[st.session].name);
        if st.target.is_empty() {
            let _ = writeln!(out, "    Note over {who}: {}", mermaid_text(st.label));
        } else {
            let tgt = participant(st.target);
            let _ = writeln!(out, "    {who}->>{tgt}: {}", mermaid_text(st.label));
            let _ = writeln!(out, "    {tgt}-->>{who}: {}", mermaid_text(&st.outcome));
        }
        for (w, o) in &st.events {
            let _ = writeln!(
                out,
                "    Note over {}: wait ends: {}",
                participant(m.progs[*w].name),
                o.name()
            );
        }
    }
    if !cycle.is_empty() {
        out.push_str("    end\n");
    }
    if let Some(p) = note {
        let first = participant(m.progs[0].name);
        let last = participant(m.progs[m.progs.len() - 1].name);
        let _ = writeln!(out, "    Note over {first},{last}: {}", mermaid_text(p));
    }
    out.push_str("```\n");
    out
}

/// What each property means, for the zoo's page.
const PROPERTY_DOCS: [(Check, &str); 19] = [
    (Check::NoStuckCycle, "the ground-truth wait-for graph (MDL and foreign waits) has no cycle; a cycle the detector cannot see is broken only by a lock wait timeout"),
    (Check::NoStuckState, "in a state where no session can take a step, every session has finished"),
    (Check::NoFalseDeadlock, "each deadlock error goes to a session on a real cycle (an oracle searches the graph before the step plus the new request's blockers)"),
    (Check::BoundedWait, "while FTWRL waits, at most 2 other sessions' requests on GLOBAL are granted"),
    (Check::Bounded, "(`assert bounded W N`) while the watched session W waits for a lock, at most N requests of other sessions on that lock are granted (it is passed over at most N times); W and N are given on the entry's page"),
    (Check::Eventually, "(`assert eventually W granted`, liveness) no run in which the watched session W waits for ever while the others keep taking steps: the checker explores every state (up to the renaming of ticket ids) and looks for a cycle of states along which W waits throughout; a counterexample is a lasso, a prefix and a cycle that repeats for ever"),
    (Check::Isolation, "no session holds `X` on a tracked table while a transaction that used the table is still running (neither committed nor rolled back): a DDL never commits under it (MySQL bug #989)"),
    (Check::NoVictim, "the session the entry protects (a transaction that only reads) is never chosen as a deadlock victim"),
    (Check::NoFlushPileUp, "no session waits to open a table for an old reader of it while nobody holds or requests MDL X on the table"),
    (Check::RefCount, "a table object is never renamed while pinned"),
    (Check::NoStaleMeta, "dictionary metadata is never rewritten while another statement uses it"),
    (Check::ExactKeys, "sessions working on unrelated objects never wait for each other"),
    (Check::FairVictims, "the numbers of times sessions were chosen as deadlock victims differ by at most one"),
    (Check::NoLostWakeup, "no MDL request waits while the lock's own rules would grant it now (the rule its reschedule applies: a lost wakeup otherwise)"),
    (Check::AllDone, "(sometimes) a state where every session has finished is reachable"),
    (Check::DeadlockReported, "(sometimes) a deadlock error is reported (by the detector, at the step that closes the cycle)"),
    (Check::WatchedGranted, "(sometimes) the watched request (FTWRL) is granted after it waited"),
    (Check::GrantedAfterPassedOver, "(sometimes) the watched request is granted after other requests on its lock were granted before it"),
    (Check::TwoDeadlocks, "(sometimes) two deadlock errors are reported (both cycles of one wait broken)"),
];

/// The zoo's README: a section per entry, then the latch-level entries (`latch`).
pub fn report(es: &[Entry], rs: &[EntryResult], latch: &[latch::LatchEntry]) -> String {
    let mut out = String::new();
    out.push_str(
        "# The bug zoo\n\n\
Historical lock-manager designs from the MySQL and MariaDB bug trackers, each as two small \
stateright models that drive the real `mdl_core::table::LockTable`: the **old design**, which \
the checker must catch (a property violated, with the shortest trace found by BFS), and the \
**fixed design**, whose properties must hold in every reachable state. Where an entry needs \
more than metadata locks (THR_LOCK, InnoDB row locks, the table definition cache, purge's \
table objects, a server mutex, a backup tool's own waits), that part is a small component of \
the model state. In the old designs its waits are invisible to the MDL detector; in most fixed \
designs they join the MDL wait-for graph through `LockTable::foreign_wait`, but where the \
servers never made them visible (THR_LOCK, server mutexes, an application's waits) they stay \
invisible in the fixed design too, and the fix has to keep the cycle from forming. The \
properties are computed on the ground-truth wait-for graph (MDL waits plus every foreign wait, \
registered or not). Where an old design differs from the real lock table in something that is \
not data (a detector that searches once, a statement that gives its locks back), the zoo \
engine models it itself and the entry's page says so. The [latch-level entries](#latch-level) \
at the end are not models: their old designs are seeded bugs of the real concurrent manager, \
caught by shuttle.\n\n\
This page is generated: `cargo run -p mdl --bin mdl -- zoo --report models/zoo/README.md`. \
Run the zoo with `mdl zoo [--format json] [--entry NAME]`; `cargo test -p mdl --test zoo` \
checks that every old design is caught and every new one holds.\n\n\
Models are bounded (two to four sessions, fixed programs, at most a few rounds or retries; \
a program marked to run for ever loops, and the states are compared up to the renaming of \
ticket ids, so its state space is finite); \
waits have no timeout in the models, so a cycle the detector does not see stays in the state, \
where the property `no deadlock left to a timeout` flags it.\n\n",
    );
    out.push_str("Properties (`always` unless marked):\n\n");
    for (c, what) in PROPERTY_DOCS {
        let _ = writeln!(out, "- `{}`: {what}", c.name());
    }
    out.push_str(
        "\nTo add an entry: write a function in `models/check/src/zoo/entries/` (the module or one of its \
themed submodules) that builds the two \
`Design`s (programs of steps per session, foreign resources, the checks), add it to \
`entries::all()`, and regenerate this page; `models/mdl/tests/zoo.rs` then requires the old \
design to be caught and the new one to hold.\n\n",
    );
    out.push_str("| entry | bug | old design: violated property | trace | new design | states |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for r in rs {
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} | {} | {} | {} |",
            r.id,
            r.id,
            r.bug,
            r.old.property.as_deref().unwrap_or("**not caught**"),
            r.old.trace_len,
            if r.new.failed.is_empty() {
                "holds"
            } else {
                "**fails**"
            },
            r.new.states
        );
    }
    out.push('\n');
    for (i, (e, r)) in es.iter().zip(rs).enumerate() {
        page_head(&mut out, e.id, i + 1, e.title, e.bug, e.link, e.story);
        let _ = writeln!(out, "**Old design (modelled).** {}\n", e.old_text);
        match &r.old.property {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "**What the checker found.** `{p}` is violated after {} steps ({} states, BFS):\n",
                    r.old.trace_len, r.old.states
                );
                let note = format!("violated: {p}");
                out.push_str(&mermaid(&e.old, &r.old.steps, Some(&note)));
                out.push('\n');
            }
            None => out.push_str(
                "**What the checker found.** Nothing: the old design was NOT caught.\n\n",
            ),
        }
        if let Some(l) = &r.old.lasso {
            let _ = writeln!(
                out,
                "**Starvation (`{}`).** A run of {} steps reaches a state from which a cycle of {} steps, along which the watched session waits throughout, leads back to it: the wait never ends while the others keep going.\n",
                Check::Eventually.name(),
                l.prefix_len,
                l.cycle_len
            );
            out.push_str(&mermaid_lasso(
                &e.old,
                &l.prefix_steps,
                &l.cycle_steps,
                Some("violated: eventually (the loop never ends)"),
            ));
            out.push('\n');
        }
        for v in &r.variants {
            match &v.property {
                Some(p) => {
                    let _ = writeln!(
                        out,
                        "**Variant: {}.** `{p}` is violated after {} steps ({} states).\n",
                        v.label, v.trace_len, v.states
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "**Variant: {}.** Every property holds over all {} reachable states.\n",
                        v.label, v.states
                    );
                }
            }
        }
        let _ = writeln!(out, "**The fix (modelled).** {}\n", e.fix);
        let props: Vec<String> = r.new.properties.iter().map(|p| format!("`{p}`")).collect();
        if r.new.failed.is_empty() {
            let _ = writeln!(
                out,
                "**Checked.** {} hold over all {} reachable states.\n",
                props.join(", "),
                r.new.states
            );
        } else {
            let _ = writeln!(out, "**Checked.** FAILS: {}.\n", r.new.failed.join(", "));
        }
        if let Some(x) = &r.new.example {
            let _ = writeln!(
                out,
                "**The fix at work.** A shortest run of the fixed design to `{x}`:\n"
            );
            out.push_str(&mermaid(&e.new, &r.new.example_steps, Some(x)));
            out.push('\n');
        }
    }
    out.push_str(&latch::report(latch, es.len() + 1));
    out
}

/// The head of an entry's page (anchor, title, reference, story), the same for the
/// protocol-level and the latch-level entries.
pub(crate) fn page_head(
    out: &mut String,
    id: &str,
    n: usize,
    title: &str,
    bug: &str,
    link: &str,
    story: &str,
) {
    let _ = writeln!(out, "<a id=\"{id}\"></a>\n## {n}. {title}\n");
    if link.is_empty() {
        let _ = writeln!(out, "**Reference.** {bug} (`--entry {id}`)\n");
    } else {
        let _ = writeln!(out, "**Reference.** {bug}, <{link}> (`--entry {id}`)\n");
    }
    let _ = writeln!(out, "**What happened.** {story}\n");
}
