//! Prints the chosen Vulkan device, its driver, its subgroup size range,
//! and which of the known feature and property names it does not support.
//!
//!     cargo run -p vulkan-reference --example vk_info [DEVICE-SUBSTRING]

use std::time::Instant;

use vulkan_reference::{feature_names, property_names, Error, Reference, ReferenceOptions};

fn main() {
    let options = ReferenceOptions {
        device: std::env::args().nth(1),
        ..ReferenceOptions::default()
    };
    let t = Instant::now();
    let vk = match Reference::new(&options) {
        Ok(vk) => vk,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!("device: {}", vk.device_name());
    println!("driver: {}", vk.driver_info());
    println!("subgroup size range: {:?}", vk.subgroup_size_range());
    println!("Reference::new: {:?}", t.elapsed());
    drop(vk);
    let all = ReferenceOptions {
        features: feature_names(),
        properties: property_names(),
        ..options
    };
    match Reference::new(&all) {
        Ok(_) => println!("every known feature and property is supported"),
        Err(Error::UnsupportedFeatures { names, .. }) => {
            println!("unsupported ({}):", names.len());
            for n in names {
                println!("  {n}");
            }
        }
        Err(e) => println!("error: {e}"),
    }
}
