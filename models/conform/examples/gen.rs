//! `gen SEED [N]`: prints generated random scenarios (development aid).
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let seed: u64 = a[1].parse().unwrap();
    let n: u64 = a.get(2).map(|x| x.parse().unwrap()).unwrap_or(1);
    let map = mdl_sql::mapping::Mapping::load().unwrap();
    for i in 0..n {
        let g = mdl_conform::random::generate(&map, seed + i, 3, 12);
        println!("{}", g.text(&[format!("seed {}", seed + i)]));
    }
}
