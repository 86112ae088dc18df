//! What CPU this is: the key of the auto-tuning cache.

/// The CPU's brand string (`"AMD EPYC 7763 64-Core Processor"`), from CPUID on x86-64, else
/// from `/proc/cpuinfo`, else `"unknown"`.
pub fn cpu_model() -> String {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    {
        use std::arch::x86_64::__cpuid;
        // SAFETY: CPUID is available on every x86-64 CPU.
        let max_ext = unsafe { __cpuid(0x8000_0000) }.eax;
        if max_ext >= 0x8000_0004 {
            let mut bytes = Vec::with_capacity(48);
            for leaf in 0x8000_0002u32..=0x8000_0004 {
                // SAFETY: the leaf is within the supported extended range (checked above).
                let r = unsafe { __cpuid(leaf) };
                for reg in [r.eax, r.ebx, r.ecx, r.edx] {
                    bytes.extend_from_slice(&reg.to_le_bytes());
                }
            }
            let s = String::from_utf8_lossy(&bytes)
                .trim_matches(char::from(0))
                .trim()
                .to_string();
            if !s.is_empty() {
                return s;
            }
        }
    }
    if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") {
        for line in info.lines() {
            if let Some((k, v)) = line.split_once(':') {
                if k.trim() == "model name" {
                    return v.trim().to_string();
                }
            }
        }
    }
    "unknown".to_string()
}

/// The CPU features the checksum code paths depend on (`sse4.2`, `pclmulqdq`, `avx2`).
pub fn cpu_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("sse4.2") {
            out.push("sse4.2");
        }
        if std::is_x86_feature_detected!("pclmulqdq") {
            out.push("pclmulqdq");
        }
        if std::is_x86_feature_detected!("avx2") {
            out.push("avx2");
        }
    }
    out
}
