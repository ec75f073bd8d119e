//! A development-only token signing key, so `local/run` works without generating one by hand.
//!
//! When the JWT key parameters are not given, the key in `local/.dev/signing-key.pem`
//! (gitignored) is used, created on first run; the public key is derived from it. It must
//! never be used anywhere but on a developer's machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use platform::keys;

pub const PRIVATE_KEY_PARAMETER: &str = "JwtPrivateKey";
pub const PUBLIC_KEY_PARAMETER: &str = "JwtPublicKey";
pub const DEV_KEY_PATH: &str = "local/.dev/signing-key.pem";

/// Where the private key came from, when the development key was used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DevKey {
    Loaded(PathBuf),
    Created(PathBuf),
}

/// Fills in whichever JWT key parameters are missing. Returns the development key used, if any.
pub fn fill_jwt_parameters(
    parameters: &mut BTreeMap<String, String>,
    key_file: &Path,
) -> Result<Option<DevKey>, String> {
    fn given(parameters: &BTreeMap<String, String>, k: &str) -> Option<String> {
        parameters.get(k).filter(|v| !v.trim().is_empty()).cloned()
    }
    let (private_pem, dev_key) = match given(parameters, PRIVATE_KEY_PARAMETER) {
        Some(pem) => (pem, None),
        None => {
            let (pem, dev_key) = load_or_create(key_file)?;
            parameters.insert(PRIVATE_KEY_PARAMETER.to_string(), pem.clone());
            (pem, Some(dev_key))
        }
    };
    if given(parameters, PUBLIC_KEY_PARAMETER).is_none() {
        let (_, public) = keys::parse_private_pem(&private_pem)
            .map_err(|e| format!("{PRIVATE_KEY_PARAMETER}: {e}"))?;
        parameters.insert(
            PUBLIC_KEY_PARAMETER.to_string(),
            keys::public_pem_from_raw(&public),
        );
    }
    Ok(dev_key)
}

fn load_or_create(path: &Path) -> Result<(String, DevKey), String> {
    if path.exists() {
        let pem = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        keys::parse_private_pem(&pem).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((pem, DevKey::Loaded(path.to_path_buf())));
    }
    let pair = keys::generate_ed25519().map_err(|e| e.to_string())?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    write_private(path, &pair.private_pem).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((pair.private_pem, DevKey::Created(path.to_path_buf())))
}

#[cfg(unix)]
fn write_private(path: &Path, pem: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(pem.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, pem: &str) -> std::io::Result<()> {
    std::fs::write(path, pem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_then_reuses_the_dev_key_and_derives_the_public_key() {
        let dir = std::env::temp_dir().join(format!("local-stack-devkey-{}", uuid::Uuid::new_v4()));
        let file = dir.join(".dev/signing-key.pem");

        let mut first = BTreeMap::new();
        assert_eq!(
            fill_jwt_parameters(&mut first, &file),
            Ok(Some(DevKey::Created(file.clone())))
        );
        let mut second = BTreeMap::new();
        assert_eq!(
            fill_jwt_parameters(&mut second, &file),
            Ok(Some(DevKey::Loaded(file.clone())))
        );
        assert_eq!(first, second);
        let (_, public) = keys::parse_private_pem(&first[PRIVATE_KEY_PARAMETER]).expect("private");
        assert_eq!(
            keys::parse_public_pems(&first[PUBLIC_KEY_PARAMETER]).expect("public"),
            vec![public]
        );

        // Given keys are kept; a missing public key is derived from the given private one.
        let pair = keys::generate_ed25519().expect("pair");
        let mut given =
            BTreeMap::from([(PRIVATE_KEY_PARAMETER.to_string(), pair.private_pem.clone())]);
        assert_eq!(fill_jwt_parameters(&mut given, &file), Ok(None));
        assert_eq!(given[PUBLIC_KEY_PARAMETER], pair.public_pem);

        let _ = std::fs::remove_dir_all(dir);
    }
}
