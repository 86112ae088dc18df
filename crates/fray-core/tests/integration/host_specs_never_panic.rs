//! The host-costs spec reader takes any text: it returns costs or an error that quotes the
//! part it could not read, and the overrides it reads set exactly the cost they name.

use fray_core::workload::HostCosts;
use proptest::prelude::*;

const KEYS: [&str; 9] = [
    "send",
    "recv",
    "match",
    "register",
    "page",
    "copy",
    "send_copy",
    "recv_copy",
    "eager",
];

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,60}") {
        if let Ok(c) = text.parse::<HostCosts>() {
            // Whatever reads as costs reads as costs no one can run backwards in time.
            for v in [c.send_s, c.recv_s, c.match_s, c.register_s, c.register_s_per_page,
                      c.send_copy_s_per_byte, c.recv_copy_s_per_byte, c.eager_limit_bytes] {
                prop_assert!(v >= 0.0, "{text:?} gave {c:?}");
            }
        }
    }

    #[test]
    fn mutated_specs_are_read_or_reported(
        key in 0usize..KEYS.len(),
        cut in 0usize..24,
        junk in "[ -~]{0,4}",
    ) {
        let good = format!("ember*0.5+{}=12", KEYS[key]);
        let mut text = good.clone();
        let at = cut.min(text.len());
        text.replace_range(at..at, &junk);
        // Either it reads (the junk happened to make sense) or the error quotes the spec.
        if let Err(e) = text.parse::<HostCosts>() {
            let base = text.split('+').next().unwrap_or_default();
            prop_assert!(
                e.message.contains(&format!("{text:?}")) || e.message.contains(&format!("{base:?}")),
                "{text:?}: {e}"
            );
        }
    }

    #[test]
    fn an_override_sets_its_cost_and_nothing_else(key in 0usize..KEYS.len(), n in 0u32..100_000) {
        let (value, expected) = match KEYS[key] {
            "eager" => (n.to_string(), f64::from(n)),
            "copy" | "send_copy" | "recv_copy" => (format!("{n}ps/B"), f64::from(n) * 1e-12),
            _ => (format!("{n}ns"), f64::from(n) * 1e-9),
        };
        let c: HostCosts = format!("ember+{}={value}", KEYS[key]).parse().unwrap();
        let e = HostCosts::EMBER;
        let fields = |c: &HostCosts| [
            ("send", c.send_s), ("recv", c.recv_s), ("match", c.match_s),
            ("register", c.register_s), ("page", c.register_s_per_page),
            ("send_copy", c.send_copy_s_per_byte), ("recv_copy", c.recv_copy_s_per_byte),
            ("eager", c.eager_limit_bytes),
        ];
        for ((name, got), (_, before)) in fields(&c).into_iter().zip(fields(&e)) {
            let named = name == KEYS[key] || (KEYS[key] == "copy" && name.ends_with("copy"));
            let want = if named { expected } else { before };
            prop_assert!((got - want).abs() <= 1e-9 * want.abs().max(1e-18), "{name}: {got} != {want}");
        }
    }
}
