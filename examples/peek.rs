fn main() {
    let cfg = checkpoint_lab::engine::Config::default();
    let t = std::time::Instant::now();
    let r = checkpoint_lab::engine::simulate(&cfg).unwrap();
    eprintln!("took {:?}", t.elapsed());
    let mut v = serde_json::to_value(&r).unwrap();
    v["series"] = serde_json::Value::Null;
    v["timeline"] = serde_json::Value::Null;
    v["checkpoints"] = serde_json::json!(v["checkpoints"].as_array().unwrap().iter().take(4).collect::<Vec<_>>());
    println!("{}", serde_json::to_string_pretty(&v).unwrap());
}
