//! One snapshot per fixture and stage: reflection, layout, MSL and the
//! decoded executable. Run `cargo insta review` after an intended change.

use halc::msl::{BindingModel, LayoutOptions, Platform, Tier};
use halc::Options;

use crate::input;

#[test]
fn snapshots_per_fixture() {
    crate::snapshot_settings().bind(|| {
        insta::glob!("../../fixtures", "kernels/*.spv", |path| {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let inp = input(path);
            // Reflection.
            let words = halc::spirv::Words::from_bytes(&inp.bytes).unwrap();
            let info = halc::spirv::reflect(&words).unwrap();
            insta::assert_json_snapshot!(format!("{name}.reflect"), info);

            let result = halc::compile(std::slice::from_ref(&inp), &Options::default());
            let compiled = match result {
                Ok(c) => c,
                Err(e) => {
                    insta::assert_snapshot!(format!("{name}.error"), e.to_string());
                    return;
                }
            };
            let layouts: Vec<_> = compiled
                .kernels
                .iter()
                .map(|k| (&k.name, &k.layout))
                .collect();
            insta::assert_json_snapshot!(format!("{name}.layout"), layouts);
            for k in &compiled.kernels {
                insta::assert_snapshot!(format!("{name}.{}.msl", k.entry.name), k.msl.source);
            }
            let bytes = compiled.to_flatbuffer();
            let view = halc::inspect::decode(&bytes).unwrap();
            insta::assert_json_snapshot!(format!("{name}.executable"), view, {
                ".build.halc_version" => "[halc version]",
            });

            // The discrete model too: layout and MSL.
            let discrete = Options {
                layout: LayoutOptions {
                    model: BindingModel::Discrete,
                    ..Default::default()
                },
                ..Default::default()
            };
            let compiled = halc::compile(std::slice::from_ref(&inp), &discrete).unwrap();
            for k in &compiled.kernels {
                insta::assert_json_snapshot!(
                    format!("{name}.{}.discrete.layout", k.entry.name),
                    k.layout
                );
                insta::assert_snapshot!(
                    format!("{name}.{}.discrete.msl", k.entry.name),
                    k.msl.source
                );
            }

            // Emulated image atomics on iOS tier 1 too, where storage
            // images and their companion buffers leave the argument buffer.
            if name == "image_atomics_emulated" || name == "ray_query" {
                let tier1 = Options {
                    layout: LayoutOptions {
                        platform: Platform::IOS,
                        tier: Tier::Tier1,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let compiled = halc::compile(std::slice::from_ref(&inp), &tier1).unwrap();
                for k in &compiled.kernels {
                    insta::assert_json_snapshot!(
                        format!("{name}.{}.ios-tier1.layout", k.entry.name),
                        k.layout
                    );
                    insta::assert_snapshot!(
                        format!("{name}.{}.ios-tier1.msl", k.entry.name),
                        k.msl.source
                    );
                }
            }
        });
    });
}
