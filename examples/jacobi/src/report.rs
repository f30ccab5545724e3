//! What each PE found, gathered by every PE, and PE 0's report of the run with its
//! machine-readable `result:` line.

use crate::checks::Comparison;
use crate::floors::Floors;
use crate::kernels::CommonKernels;
use cudarc::driver::DevicePtr;
use jacobi_args::Options;
use nvshmem_halo::Decomposition2d;
use nvshmem_host::{Kernel, LaunchShape, Nvshmem, SymmetricBuffer};
use std::error::Error;
use std::io::Write;

/// What one PE found, gathered by PE 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PeReport {
    /// Seconds of the timed run on the GPU.
    pub(crate) seconds: f64,
    /// Against the single-GPU run, with `--check`.
    pub(crate) gpu: Option<Comparison>,
    /// Against the CPU, with `--check` on a small problem.
    pub(crate) cpu: Option<Comparison>,
}

impl PeReport {
    /// Values in [`PeReport::to_array`].
    pub(crate) const LEN: usize = 7;

    /// Every PE's report, to every PE, through `buffer` (symmetric, [`PeReport::LEN`] values).
    pub(crate) fn gather(
        self,
        nvshmem: &Nvshmem,
        common: &CommonKernels<'_>,
        buffer: &mut SymmetricBuffer<'_, f64>,
    ) -> Result<Vec<PeReport>, Box<dyn Error>> {
        buffer.copy_from_host(&self.to_array())?;
        nvshmem.barrier_all();
        let n_pes = nvshmem.n_pes() as usize;
        let gathered = nvshmem.stream().alloc_zeros::<f64>(PeReport::LEN * n_pes)?;
        let (gathered_address, _record) = gathered.device_ptr(nvshmem.stream());
        // SAFETY: gather(source, count, dest): `source` holds LEN values on every PE, written
        // before the barrier above; `dest` holds LEN × n_pes.
        unsafe {
            common.gather.launch(
                LaunchShape::linear(1, 128),
                &[
                    &buffer.as_symmetric_ptr(),
                    &(PeReport::LEN as u32),
                    &(gathered_address as *mut f64),
                ],
            )?;
        }
        let reports: Vec<PeReport> = nvshmem
            .stream()
            .clone_dtoh(&gathered)?
            .chunks(PeReport::LEN)
            .map(PeReport::from_slice)
            .collect();
        nvshmem.barrier_all();
        Ok(reports)
    }

    fn to_array(self) -> [f64; Self::LEN] {
        let values =
            |c: Option<Comparison>| c.map_or([-1.0; 3], |c| [c.differing, c.largest, c.norm]);
        let ([g0, g1, g2], [c0, c1, c2]) = (values(self.gpu), values(self.cpu));
        [self.seconds, g0, g1, g2, c0, c1, c2]
    }

    fn from_slice(values: &[f64]) -> PeReport {
        let comparison = |v: &[f64]| {
            (v[0] >= 0.0).then(|| Comparison {
                differing: v[0],
                largest: v[1],
                norm: v[2],
            })
        };
        PeReport {
            seconds: values[0],
            gpu: comparison(&values[1..4]),
            cpu: comparison(&values[4..7]),
        }
    }

    /// Whether a check of this PE failed.
    pub(crate) fn failed(&self) -> bool {
        self.gpu.iter().chain(&self.cpu).any(Comparison::failed)
    }
}

/// PE 0's report of the run: the problem and kernel, the time and rates, the norm, the checks
/// (each PE that failed named), and the `result:` line, also appended to `--append-result`.
pub(crate) fn print_results(
    options: &Options,
    decomposition: &Decomposition2d,
    stencil: &Kernel<'_>,
    floors: &Floors,
    final_norm: f64,
    reports: &[PeReport],
    failed: bool,
) -> Result<(), Box<dyn Error>> {
    let n_pes = reports.len();
    let (nx, ny) = (options.nx, options.ny);
    let seconds = reports.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let per_iter = seconds / f64::from(options.iters);
    let bytes = 2 * nx * ny * 4;
    let halo_bytes: usize = (0..n_pes).map(|pe| decomposition.halo_cells(pe) * 4).sum();
    let rate = bytes as f64 / per_iter;
    let fraction = rate / floors.copy;
    let grid = decomposition.grid();
    let registers = stencil.registers();
    let (_, blocks_per_sm, _) =
        stencil.max_cooperative_blocks(LaunchShape::linear(1, options.block_x))?;
    println!(
        "{}: variant {} on {n_pes} PE(s) as a {} x {} process grid, {nx} x {ny} cells, {} \
         iterations, norm every {}; patches of up to {} x {} cells; blocks of {} threads x {} \
         columns x {} rows; kernel `{}`: {registers} registers per thread, {blocks_per_sm} \
         resident blocks per multiprocessor",
        program_name(),
        options.variant,
        grid.px,
        grid.py,
        options.iters,
        options.norm_every,
        decomposition.columns().max_len(),
        decomposition.rows().max_len(),
        options.block_x,
        options.tiling().vector,
        options.rows_per_band,
        stencil.name()
    );
    println!(
        "{}: {:.3} ms ({:.1} µs) per iteration (slowest PE{}); {:.3} GB to move per iteration (+{halo_bytes} \
         halo bytes) = {:.1} GB/s; device-to-device copy {:.1} GB/s; {:.1} % of the memory floor",
        program_name(),
        per_iter * 1e3,
        per_iter * 1e6,
        options.graph.map_or(String::new(), |k| format!(
            ", replaying graphs of {k} iterations"
        )),
        bytes as f64 / 1e9,
        rate / 1e9,
        floors.copy / 1e9,
        100.0 * fraction
    );
    println!(
        "{}: norm after {} iterations: {final_norm:.6e}",
        program_name(),
        options.iters
    );
    let check = if !options.check {
        "skipped"
    } else if failed {
        "fail"
    } else {
        "pass"
    };
    if options.check {
        let gpu = Comparison::total(reports.iter().filter_map(|r| r.gpu));
        let cpu = Comparison::total(reports.iter().filter_map(|r| r.cpu));
        let shown = |c: Option<Comparison>, otherwise: &str| {
            c.map_or(otherwise.to_string(), |c| c.to_string())
        };
        println!(
            "{}: check against a single-GPU run: {}; against the CPU: {}; {check}",
            program_name(),
            shown(gpu, "skipped"),
            shown(cpu, "skipped (problem too large)"),
        );
        for (pe, r) in reports.iter().enumerate().filter(|(_, r)| r.failed()) {
            println!(
                "{}: PE {pe} differs: from the single-GPU run {}; from the CPU {}",
                program_name(),
                shown(r.gpu, "not checked"),
                shown(r.cpu, "not checked"),
            );
        }
    }
    let line = format!(
        "result: variant={} pes={n_pes} nx={nx} ny={ny} iters={} norm_every={} \
         seconds_per_iter={per_iter:.9} bytes_per_iter={bytes} gbps={:.1} copy_gbps={:.1} \
         floor_fraction={fraction:.3} check={check} norm={final_norm:.6e} registers={registers} \
         blocks_per_sm={blocks_per_sm} fit_copy_gbps={:.1} launch_us={:.3} barrier_us={:.3}",
        options.variant,
        options.iters,
        options.norm_every,
        rate / 1e9,
        floors.copy / 1e9,
        floors.fit_copy / 1e9,
        floors.launch * 1e6,
        floors.barrier * 1e6,
    );
    let line = match options.graph {
        Some(k) => format!("{line} graph={k}"),
        None => line,
    };
    println!("{line}");
    if let Some(path) = &options.append_result {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        writeln!(file, "{line}")?;
    }
    Ok(())
}

/// This program's file name, for messages.
fn program_name() -> String {
    std::env::args()
        .next()
        .and_then(|path| {
            std::path::Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "jacobi".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_travel_as_values_and_name_what_differs() {
        let off = Comparison::of(&[1.0, 3.0], &[1.0, 2.0], 2.0, 2.0);
        for report in [
            PeReport {
                seconds: 1.5,
                gpu: None,
                cpu: None,
            },
            PeReport {
                seconds: 1.5,
                gpu: Some(off),
                cpu: None,
            },
            PeReport {
                seconds: 1.5,
                gpu: Some(off),
                cpu: Some(off),
            },
        ] {
            assert_eq!(PeReport::from_slice(&report.to_array()), report);
            assert_eq!(report.failed(), report.gpu.is_some());
        }
        assert_eq!(
            off.to_string(),
            "1 cells differ (largest relative |diff| 5.000e-1), norm 0.000e0 off (limit 1e-4)"
        );
        let total = Comparison::total([off, off].into_iter()).unwrap();
        assert_eq!((total.differing, total.largest), (2.0, 0.5));
    }
}
