//! A check of register allocations for the tests (see `verify`).

use chapter21::CodeGen;

/// A small independent check of an allocation (the project's own checker
/// lands separately): runs the listing forwards, block by block, keeping
/// which value each register and stack place holds (a split's value is
/// its input's), and checks that every use finds its value where it was
/// put, that a phi's place holds each input at the end of its
/// predecessor, and that two-address results share their input's place.
pub fn verify(code: &CodeGen) -> Result<(), String> {
    use chapter21::graph::NodeId;
    use chapter21::mach::{mach, Op, RegMask};
    use chapter21::regalloc::build::{layout, Ctx};
    use chapter21::regalloc::Loc;
    use std::collections::BTreeMap;
    let g = &code.graph;
    let a = code.alloc.as_ref().ok_or("not allocated")?;
    let target = code.target.ok_or("no target")?;
    let cx = Ctx::new(g, target);
    let lay = layout(
        &cx,
        code.schedule.as_ref().ok_or("no schedule")?,
        code.local.as_ref().ok_or("no local")?,
    );
    let root = |mut n: NodeId| {
        for _ in 0..10_000 {
            match mach(g, n) {
                Some(m) if m.op == Op::Split => match g.input(n, 1) {
                    Some(x) => n = x,
                    None => break,
                },
                _ => break,
            }
        }
        n
    };
    type State = BTreeMap<Loc, NodeId>;
    let nb = lay.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (bi, b) in lay.blocks.iter().enumerate() {
        for &s in &b.succs {
            preds[s].push(bi);
        }
    }
    let mut exit: Vec<Option<State>> = vec![None; nb];
    let run = |bi: usize, exit: &[Option<State>], check: bool| -> Result<State, String> {
        let b = &lay.blocks[bi];
        let mut st: Option<State> = None;
        for &p in &preds[bi] {
            if let Some(e) = &exit[p] {
                st = Some(match st {
                    None => e.clone(),
                    Some(s) => s.into_iter().filter(|(l, v)| e.get(l) == Some(v)).collect(),
                });
            }
        }
        let mut st = st.unwrap_or_default();
        for &p in &b.phis {
            let Some(&l) = a.loc.get(&p) else { continue };
            if check && mach(g, p).is_none() {
                for (i, pred) in b.preds.iter().enumerate() {
                    let (Some(pred), Some(x)) = (pred, g.input(p, i + 1)) else {
                        continue;
                    };
                    if !a.loc.contains_key(&x) {
                        continue;
                    }
                    let have = exit[*pred].as_ref().and_then(|e| e.get(&l)).copied();
                    if have != Some(root(x)) {
                        return Err(format!(
                            "phi {} input {} ({}) not in {l:?} at end of L{}: {have:?}",
                            p.nid(),
                            i + 1,
                            x.nid(),
                            lay.blocks[*pred].head.nid()
                        ));
                    }
                }
            }
            st.insert(l, p);
        }
        for &n in &b.insts {
            if check {
                for (_, x, _) in cx.uses(n) {
                    if let Some(&l) = a.loc.get(&x) {
                        if st.get(&l) != Some(&root(x)) {
                            return Err(format!(
                                "node {} reads {} from {l:?}, which holds {:?}",
                                n.nid(),
                                x.nid(),
                                st.get(&l).map(|v| v.nid())
                            ));
                        }
                    }
                }
                if let Some(m) = mach(g, n) {
                    if let Some(i) = chapter21::cpu::two_address(target.cpu, m) {
                        if let (Some(x), Some(l)) = (g.input(n, i), a.loc.get(&n)) {
                            if a.loc.get(&x) != Some(l) {
                                return Err(format!(
                                    "two-address {} not in its input's place",
                                    n.nid()
                                ));
                            }
                        }
                    }
                }
            }
            if let Some(kill) = mach(g, n).and_then(|m| chapter21::cpu::kill_mask(target, m)) {
                st.retain(|l, _| !matches!(l, Loc::Reg(r) if kill.contains(*r)));
            }
            if let Some(&l) = a.loc.get(&n) {
                st.insert(l, root(n));
            }
            let _ = RegMask::EMPTY;
        }
        Ok(st)
    };
    for _ in 0..nb + 2 {
        let mut changed = false;
        for bi in 0..nb {
            let s = run(bi, &exit, false)?;
            if exit[bi].as_ref() != Some(&s) {
                exit[bi] = Some(s);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for bi in 0..nb {
        run(bi, &exit, true)?;
    }
    Ok(())
}
