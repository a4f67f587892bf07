#[path = "build/google.rs"]
mod google;
#[path = "build/python.rs"]
mod python;

fn main() {
    google::build();
    python::build();
}
