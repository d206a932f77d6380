//! From token vectors to one sentence vector: the mean of the vectors the
//! attention mask keeps, scaled to unit length.

use candle_core::{D, DType, Result, Tensor};

/// `hidden` is `[batch, tokens, dim]`, `mask` `[batch, tokens]` (1 for a real
/// token, 0 for padding, any number type); returns `[batch, dim]`, each row the
/// masked mean of its tokens divided by its L2 norm (a zero row stays zero).
pub(crate) fn mean_pool_normalised(hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(D::Minus1)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean
        .sqr()?
        .sum_keepdim(D::Minus1)?
        .sqrt()?
        .clamp(1e-12f32, f32::MAX)?;
    mean.broadcast_div(&norm)
}

#[cfg(test)]
mod tests {
    use candle_core::Device;

    use super::*;

    struct Case {
        what: &'static str,
        /// One row of tokens, each a vector of 2.
        tokens: &'static [[f32; 2]],
        mask: &'static [u32],
        expected: [f32; 2],
    }

    const CASES: &[Case] = &[
        Case {
            what: "the mean of every token, normalised",
            tokens: &[[3.0, 0.0], [3.0, 8.0]],
            mask: &[1, 1],
            expected: [0.6, 0.8],
        },
        Case {
            what: "padding is left out of the mean",
            tokens: &[[0.0, 2.0], [100.0, -100.0]],
            mask: &[1, 0],
            expected: [0.0, 1.0],
        },
        Case {
            what: "a negative direction is kept",
            tokens: &[[-1.0, 0.0], [-1.0, 0.0], [5.0, 5.0]],
            mask: &[1, 1, 0],
            expected: [-1.0, 0.0],
        },
        Case {
            what: "a zero vector stays zero (no division by zero)",
            tokens: &[[0.0, 0.0], [7.0, 7.0]],
            mask: &[1, 0],
            expected: [0.0, 0.0],
        },
    ];

    fn run(case: &Case) -> Vec<f32> {
        let n = case.tokens.len();
        let flat: Vec<f32> = case.tokens.iter().flatten().copied().collect();
        let hidden = Tensor::from_vec(flat, (1, n, 2), &Device::Cpu).unwrap();
        let mask = Tensor::from_vec(case.mask.to_vec(), (1, n), &Device::Cpu).unwrap();
        let out = mean_pool_normalised(&hidden, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        out.into_iter().next().unwrap()
    }

    #[test]
    fn pooling_cases() {
        for case in CASES {
            let got = run(case);
            let close = got
                .iter()
                .zip(case.expected)
                .all(|(g, e)| (g - e).abs() < 1e-5);
            assert!(
                close,
                "{}: got {got:?}, expected {:?}",
                case.what, case.expected
            );
        }
    }

    #[test]
    fn rows_of_a_batch_are_pooled_apart() {
        // Two rows, the second with one padded token.
        let hidden = Tensor::from_vec(
            vec![1.0f32, 1.0, 1.0, 1.0, 0.0, 4.0, 9.0, 9.0],
            (2, 2, 2),
            &Device::Cpu,
        )
        .unwrap();
        let mask = Tensor::from_vec(vec![1u32, 1, 1, 0], (2, 2), &Device::Cpu).unwrap();
        let out = mean_pool_normalised(&hidden, &mask)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let half = std::f32::consts::FRAC_1_SQRT_2;
        for (got, expected) in out.iter().flatten().zip([half, half, 0.0, 1.0]) {
            assert!((got - expected).abs() < 1e-5, "{out:?}");
        }
    }
}
