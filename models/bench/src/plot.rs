//! SVG plots of a report (`mdl bench --plots DIR`), drawn with `plotters` (its SVG
//! backend only: text is written as SVG `<text>`, no font files are read):
//!
//! - `ddl.svg`: the first DDL's cost against the number of contexts that used the lock
//!   on the fast path (log-log);
//! - `oltp-throughput.svg`: the mixed OLTP workload's statements per second by threads;
//! - `oltp-latency.svg`: its p99 wait latency of the DDL and p999 of the reads, by
//!   threads (log).
//!
//! A plot whose rows are missing (its group not run) is not written.

use crate::Report;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One curve: a name and its points.
type Series = (String, Vec<(f64, f64)>);

fn series(
    r: &Report,
    group: &str,
    name: impl Fn(usize) -> String,
    xs: &[usize],
) -> Vec<(f64, f64)> {
    xs.iter()
        .filter_map(|&x| r.median(group, &name(x)).map(|y| (x as f64, y)))
        .collect()
}

/// Draws `curves` into `path`; `log_x`/`log_y` choose logarithmic axes.
fn draw(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    curves: &[Series],
    (log_x, log_y): (bool, bool),
) -> Result<(), String> {
    let pts = curves.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(format!("{title}: nothing to draw"));
    }
    // Room around the points (a factor on log axes).
    let (x0, x1) = if log_x {
        (x0 / 1.5, x1 * 1.5)
    } else {
        (x0 - 0.5, x1 + 0.5)
    };
    let (y0, y1) = if log_y {
        (y0 / 2.0, y1 * 2.0)
    } else {
        (0.0, y1 * 1.15)
    };
    let root = SVGBackend::new(path, (760, 460)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let mut b = ChartBuilder::on(&root);
    b.caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80);
    let fmt_y = |v: &f64| {
        if *v >= 1e6 {
            format!("{:.1}M", v / 1e6)
        } else if *v >= 1e3 {
            format!("{:.0}k", v / 1e3)
        } else {
            format!("{v:.0}")
        }
    };
    macro_rules! plot {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .y_label_formatter(&fmt_y)
                .x_label_formatter(&|v: &f64| format!("{v:.0}"))
                .draw()
                .map_err(e)?;
            for (i, (name, p)) in curves.iter().enumerate() {
                let c = COLORS[i % COLORS.len()];
                chart
                    .draw_series(LineSeries::new(p.iter().copied(), c.stroke_width(2)))
                    .map_err(e)?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                    });
                chart
                    .draw_series(p.iter().map(|&xy| Circle::new(xy, 3, c.filled())))
                    .map_err(e)?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(e)?;
        }};
    }
    match (log_x, log_y) {
        (true, true) => plot!(b
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(e)?),
        (false, true) => plot!(b
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(e)?),
        (true, false) => plot!(b
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(e)?),
        (false, false) => plot!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?),
    }
    root.present().map_err(e)?;
    Ok(())
}

/// Writes the plots of `r` into `dir` (made if missing); returns the files written.
pub fn write(
    r: &Report,
    dir: &Path,
    pinners: &[usize],
    threads: &[usize],
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    let sub = format!(
        "{} cpus, parallel speedup {:.2}",
        r.machine.nproc, r.machine.speedup
    );
    let keep =
        |v: Vec<Series>| -> Vec<Series> { v.into_iter().filter(|(_, p)| !p.is_empty()).collect() };

    let ddl = keep(
        ["naive_released", "ours_released", "ours_held"]
            .iter()
            .map(|c| {
                (
                    c.to_string(),
                    series(r, "ddl", |n| format!("{c}_n{n}"), pinners),
                )
            })
            .collect(),
    );
    if !ddl.is_empty() {
        let p = dir.join("ddl.svg");
        draw(
            &p,
            "First DDL (X, no wait) after n contexts used the table",
            (
                "contexts that took SR on the fast path",
                "ns per DDL (cold caches)",
            ),
            &ddl,
            (true, true),
        )?;
        out.push(p);
    }

    let engines = ["dashmap_rwlock", "naive", "ours"];
    let tput = keep(
        engines
            .iter()
            .map(|e| {
                (
                    e.to_string(),
                    series(r, "oltp", |t| format!("{e}_t{t}"), threads),
                )
            })
            .collect(),
    );
    if !tput.is_empty() {
        let p = dir.join("oltp-throughput.svg");
        draw(
            &p,
            &format!("Mixed OLTP: statements per second ({sub})"),
            ("threads (connections)", "statements/s"),
            &tput,
            (false, false),
        )?;
        out.push(p);
    }
    let mut lat: Vec<Series> = Vec::new();
    for e in engines {
        for (what, q) in [("ddl", "p99"), ("read", "p999")] {
            lat.push((
                format!("{e} {what} {q}"),
                series(r, "oltp_wait", |t| format!("{e}_t{t}_{what}_{q}"), threads),
            ));
        }
    }
    let lat = keep(lat);
    if !lat.is_empty() {
        let p = dir.join("oltp-latency.svg");
        draw(
            &p,
            &format!("Mixed OLTP: wait latency ({sub})"),
            ("threads (connections)", "ns"),
            &lat,
            (false, true),
        )?;
        out.push(p);
    }
    Ok(out)
}
