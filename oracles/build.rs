#[path = "build/google.rs"]
mod google;
#[path = "build/pins.rs"]
mod pins;
#[path = "build/python.rs"]
mod python;

fn main() {
    pins::build();
    google::build();
    python::build();
}
