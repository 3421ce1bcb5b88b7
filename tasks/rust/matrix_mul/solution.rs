use std::ops::Mul;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<i64>,
}

impl Matrix {
    pub fn new(rows: usize, cols: usize, data: Vec<i64>) -> Option<Matrix> {
        if data.len() == rows * cols {
            Some(Matrix { rows, cols, data })
        } else {
            None
        }
    }

    pub fn identity(n: usize) -> Matrix {
        let data = (0..n * n).map(|i| i64::from(i / n == i % n)).collect();
        Matrix { rows: n, cols: n, data }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn get(&self, row: usize, col: usize) -> Option<i64> {
        if row < self.rows && col < self.cols {
            Some(self.data[row * self.cols + col])
        } else {
            None
        }
    }
}

impl Mul for Matrix {
    type Output = Option<Matrix>;

    fn mul(self, other: Matrix) -> Option<Matrix> {
        if self.cols != other.rows {
            return None;
        }
        let mut data = Vec::with_capacity(self.rows * other.cols);
        for r in 0..self.rows {
            for c in 0..other.cols {
                let cell = (0..self.cols)
                    .map(|k| self.data[r * self.cols + k] * other.data[k * other.cols + c])
                    .sum();
                data.push(cell);
            }
        }
        Matrix::new(self.rows, other.cols, data)
    }
}
