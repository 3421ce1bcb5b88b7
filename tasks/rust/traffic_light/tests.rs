#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_order() {
        assert_eq!(TrafficLight::Red.next(), TrafficLight::Green);
        assert_eq!(TrafficLight::Green.next(), TrafficLight::Yellow);
        assert_eq!(TrafficLight::Yellow.next(), TrafficLight::Red);
    }

    #[test]
    fn durations() {
        assert_eq!(TrafficLight::Red.duration(), 30);
        assert_eq!(TrafficLight::Green.duration(), 25);
        assert_eq!(TrafficLight::Yellow.duration(), 5);
    }

    #[test]
    fn full_cycle_takes_a_minute() {
        let mut light = TrafficLight::Red;
        let mut total = 0;
        for _ in 0..3 {
            total += light.duration();
            light = light.next();
        }
        assert_eq!((light, total), (TrafficLight::Red, 60));
    }
}
